/**
 * Format translation: an OpenAI-format request served by an Anthropic or Gemini model,
 * an Anthropic-format request served by an OpenAI model. OpenAI chat completions is
 * the hub: every translator goes to or from it, and Anthropic ⇄ Gemini composes two.
 *
 * Translators are pure and synchronous. A stream translator is a small state machine
 * fed the provider's parsed stream events one by one; it returns the events to send in
 * the caller's format as they become ready (never holding one back for later input it
 * does not need), and flushes the rest at `end()`.
 */

/** One server-sent event, parsed: the `event:` name (if any) and the JSON `data`. */
export interface StreamEvent {
  event?: string;
  data: unknown;
}

export interface StreamTranslator {
  push(event: StreamEvent): StreamEvent[];
  /** Called once when the upstream stream ended normally. */
  end(): StreamEvent[];
}

/** Request, response and stream translation between two formats. */
export interface FormatTranslator<FromRequest, ToRequest, FromResponse, ToResponse> {
  /** The caller's request → the provider's request (model already chosen). */
  request(body: FromRequest): ToRequest;
  /** The provider's complete answer → the caller's answer. */
  response(answer: ToResponse, context: { requestedModel: string }): FromResponse;
  /** The provider's stream → the caller's stream. */
  stream(context: { requestedModel: string }): StreamTranslator;
  /** A provider error body (any shape) and status → the caller's error body. */
  error(status: number, body: unknown): unknown;
}
