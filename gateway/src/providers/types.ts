/**
 * A provider adapter is data plus small hooks: where the provider lives, which wire
 * format it speaks, how it is authenticated and where each operation is sent. The
 * data plane iterates the registry and calls these hooks; it never branches on a
 * provider's name.
 */
import type { Operation, WireFormatId } from './formats/index.ts';

/** Per-connection settings some providers need (e.g. Azure's api-version). */
export interface ConnectionOptions {
  apiVersion?: string;
}

/** A connection option as a form asks for it: the option's name, its label and help, and an example value. */
export interface ConnectionOptionField {
  name: keyof ConnectionOptions;
  label: string;
  help: string;
  placeholder: string;
}

export interface UpstreamTarget {
  baseUrl: string;
  model: string;
  stream: boolean;
  options: ConnectionOptions;
}

export interface ProviderAdapter {
  /** Registry id: the connection's `provider`. */
  id: string;
  name: string;
  /** The wire format its native API speaks. */
  format: WireFormatId;
  /** Public endpoint used when a connection gives none (none for self-hosted endpoints). */
  defaultBaseUrl: string | undefined;
  /** Provider key of its models in the price catalog. */
  catalogProvider: string;
  /**
   * Whether it counts a request's tokens (the count_tokens operation) for callers of its
   * own format: no translator counts tokens, so callers of another get an estimate.
   */
  countsTokens: boolean;
  /** Whether it is a team's own model server (BYOM): the connection a BYOM key must use. It may take no API key. */
  selfHosted: boolean;
  /** The connection options it reads (none when absent). */
  connectionOptions?: readonly ConnectionOptionField[];
  /** Headers that authenticate a request with the connection's secret: a new object each call, which the caller may add to. */
  authHeaders(secret: string): Record<string, string>;
  /** Where an operation is sent, or undefined when the provider does not offer it. */
  url(operation: Operation, target: UpstreamTarget): string | undefined;
  /** Last touches on a native-format body before it is sent (e.g. asking for stream usage). */
  prepareBody(operation: Operation, body: Record<string, unknown>, target: UpstreamTarget): Record<string, unknown>;
  /**
   * The native body with its output limit (per answer) at most `maxTokens`: the field
   * the provider reads lowered, or added when the body has none. A new object; the
   * body unchanged for operations without output.
   */
  limitOutput(operation: Operation, body: Record<string, unknown>, maxTokens: number): Record<string, unknown>;
}
