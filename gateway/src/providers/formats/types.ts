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
   * model or the end; one that only adds text is read cheaply. Answers the parsed event
   * when it had to parse it.
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
  /** Whether a request in this format offers tools, carries images or asks for JSON. */
  requestFeatures(operation: Operation, body: Record<string, unknown>): RequestFeatures;
  /** A gateway-made error in this format's shape. */
  errorBody(status: number, message: string, code: string, param?: string | null): unknown;
}

/** What a stream has told so far; a format's event handler updates it. */
export interface StreamState {
  usage: Usage | undefined;
  model: string | undefined;
  text: string;
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
 * A format's cheap look at an unparsed event: the text it adds when that is all it can
 * change, or undefined when it must be parsed (it may carry usage, the model or the end).
 */
export type TextOnlyRead = (event: RawStreamEvent, state: Readonly<StreamState>) => string | undefined;

/**
 * A StreamObserver from a format's handler of one parsed event and, optionally, its
 * reader of text-only events (without one, every raw event is parsed).
 */
export function streamObserver(
  onEvent: (event: StreamEvent, state: StreamState) => void,
  readTextOnly: TextOnlyRead = () => undefined,
): StreamObserver {
  const state: StreamState = { usage: undefined, model: undefined, text: '', completed: false };
  return {
    observe: (event) => onEvent(event, state),
    observeRaw(raw) {
      const text = readTextOnly(raw, state);
      if (text !== undefined) {
        state.text += text;
        return undefined;
      }
      const event = parseStreamEvent(raw);
      onEvent(event, state);
      return event;
    },
    usage: () => state.usage,
    model: () => state.model,
    generatedText: () => state.text,
    completed: () => state.completed,
  };
}
