/**
 * A wire format is how one family of APIs speaks: OpenAI, Anthropic or Gemini. It
 * knows where usage sits in an answer or a stream, how events are framed, and how a
 * gateway error looks to a caller of that format. Providers name their format; the
 * data plane asks the format, never the provider's name.
 */
import type { RequestNeeds, Usage } from '@spendgate/core';
import type { StreamEvent } from '../translate/types.ts';
import { parseStreamEvent, type RawStreamEvent } from './raw-event.ts';

export type WireFormatId = 'openai' | 'anthropic' | 'gemini';

/** What a call does, whatever the format: chat (also Anthropic messages), embeddings… */
export type Operation = 'chat' | 'embeddings' | 'responses' | 'count_tokens';

/** What a request asks of the model beyond its size; the router matches it to model profiles. */
export type RequestFeatures = Pick<RequestNeeds, 'tools' | 'images' | 'jsonMode'>;

/** Follows one stream's events and knows the usage reported so far. */
export interface StreamObserver {
  observe(event: StreamEvent): void;
  /**
   * Follows an event not parsed yet. It is parsed only when it may carry usage, the
   * model or the end; one that only adds text is kept, and read only if the text (or a
   * model no other event named) is asked for. Answers the parsed event when it parsed it.
   */
  observeRaw(event: RawStreamEvent): StreamEvent | undefined;
  /** Usage the provider reported, or undefined if it reported none (yet). */
  usage(): Usage | undefined;
  /** The model the provider says it used, when it said. */
  model(): string | undefined;
  /** Text generated so far (for an estimate when the stream ends without usage). */
  generatedText(): string;
  /** True once the provider signalled a normal end of the stream. */
  completed(): boolean;
}

export interface WireFormat {
  id: WireFormatId;
  usageFromAnswer(operation: Operation, answer: unknown): Usage | undefined;
  modelFromAnswer(answer: unknown): string | undefined;
  observeStream(operation: Operation): StreamObserver;
  /** Serialises one event for a caller of this format. */
  frame(event: StreamEvent): string;
  /** What ends a stream in this format after the last event ('' when nothing does). */
  streamTerminator: string;
  /**
   * Which events of a stream the caller did not ask for but the gateway did (OpenAI chat's
   * usage-only chunk, unless the caller set `stream_options.include_usage`): they are
   * followed for usage and never sent. Undefined when the caller is sent every event.
   */
  eventsNotAskedFor?(operation: Operation, body: Record<string, unknown>): ((data: unknown) => boolean) | undefined;
  /** Whether a request in this format offers tools, carries images or asks for JSON. */
  requestFeatures(operation: Operation, body: Record<string, unknown>): RequestFeatures;
  /** A gateway-made error in this format's shape. */
  errorBody(status: number, message: string, code: string, param?: string | null): unknown;
}

/** What a stream has told so far; a format's event handler updates it. */
export interface StreamState {
  usage: Usage | undefined;
  model: string | undefined;
  /**
   * The generated text in order: pieces read, and text-only events kept unread until
   * the text is asked for. Handlers push the text an event adds.
   */
  text: (string | RawStreamEvent)[];
  completed: boolean;
}

/** True when `value` is an array with at least one item. */
export const isNonEmptyArray = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0;

/** True when some part of some message's array `content` (Gemini: `parts`) passes `test`. */
export function someContentPart(messages: unknown, test: (part: Record<string, unknown>) => boolean): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some((message) => {
    const content = (message as { content?: unknown; parts?: unknown } | null)?.content ?? (message as { parts?: unknown } | null)?.parts;
    return Array.isArray(content) && content.some((part) => typeof part === 'object' && part !== null && test(part as Record<string, unknown>));
  });
}

/**
 * A format's cheap look at unparsed events, so that the usual event, one that only adds
 * text, costs no parse: `textOnly` tells such an event apart without parsing it (it
 * cannot carry usage or the end; a model it names is read from it only when no parsed
 * event named one), and `text` reads its text, which is done only when the text is
 * asked for (undefined when only a parse can read it).
 */
export interface RawEventReader {
  textOnly(event: RawStreamEvent): boolean;
  text(event: RawStreamEvent): string | undefined;
}

/**
 * Text-only events kept unread at most: past this many they are read, so a long stream
 * holds its text, not its events.
 */
const UNREAD_EVENTS_KEPT = 64;

const emptyState = (): StreamState => ({ usage: undefined, model: undefined, text: [], completed: false });

/**
 * A StreamObserver from a format's handler of one parsed event and, optionally, its
 * reader of unparsed events (without one, every raw event is parsed).
 *
 * Text-only events are kept unread: a stream that ends normally with its usage reported
 * is billed without its text ever being read (nor, for most, its model: the events that
 * carry the usage name it).
 */
export function streamObserver(onEvent: (event: StreamEvent, state: StreamState) => void, reader?: RawEventReader): StreamObserver {
  const state = emptyState();
  let unread = 0;

  /** A kept event's text, read by the reader or, when it cannot (or the model is still unknown), parsed. */
  const textOf = (raw: RawStreamEvent): string => {
    const text = state.model === undefined ? undefined : reader?.text(raw);
    if (text !== undefined) return text;
    const seen = emptyState();
    onEvent(parseStreamEvent(raw), seen);
    state.model ??= seen.model;
    return seen.text.join('');
  };
  const readUnread = () => {
    if (unread === 0) return;
    state.text = [state.text.map((piece) => (typeof piece === 'string' ? piece : textOf(piece))).join('')];
    unread = 0;
  };

  return {
    observe: (event) => onEvent(event, state),
    observeRaw(raw) {
      if (reader?.textOnly(raw)) {
        state.text.push(raw);
        if (++unread >= UNREAD_EVENTS_KEPT) readUnread();
        return undefined;
      }
      const event = parseStreamEvent(raw);
      onEvent(event, state);
      return event;
    },
    usage: () => state.usage,
    model: () => {
      if (state.model === undefined) readUnread();
      return state.model;
    },
    generatedText: () => {
      readUnread();
      return state.text.join('');
    },
    completed: () => state.completed,
  };
}
