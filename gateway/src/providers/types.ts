/**
 * A provider adapter is data plus small hooks: where the provider lives, how it is
 * authenticated, and how its answers report usage. The data plane iterates the
 * registry and calls these hooks; it never branches on a provider's name.
 */
import type { Usage } from '@spendgate/core';

export interface ProviderAdapter {
  /** Registry id, also the connection's `provider` and the price catalog's provider key. */
  id: string;
  /** Public endpoint used when a connection gives no base URL (none for self-hosted). */
  defaultBaseUrl: string | undefined;
  /** Headers that authenticate a request with the connection's secret. */
  authHeaders(secret: string): Record<string, string>;
  /** The request body to send upstream for a chat completion (may add stream options). */
  prepareChatBody(body: ChatRequestBody): ChatRequestBody;
  /** Usage from a complete (non-streamed) JSON answer, if it reports any. */
  usageFromJson(answer: unknown): Usage | undefined;
  /** Usage carried by one parsed stream event, if it carries any. */
  usageFromStreamEvent(event: unknown): Usage | undefined;
  /** True for the stream event that only exists because we asked for usage. */
  isUsageOnlyEvent(event: unknown): boolean;
}

/** An OpenAI-format chat completion request, as the caller sent it. */
export interface ChatRequestBody {
  model: string;
  messages: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } & Record<string, unknown>;
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}
