/**
 * Token estimates with tiktoken (o200k_base), for what providers do not report: the
 * prompt of a request admitted near its budget's cap, a key's tokens-per-minute limit,
 * count_tokens for providers that cannot count, and the output of a stream that ended
 * before its usage arrived. Estimates are always marked as such.
 *
 * Counting never holds the event loop for long: tiktoken sees at most `SLICE_CHARS` per
 * call, the event loop gets a turn every `YIELD_AFTER_MS`, and BPE's time, which grows
 * with the square of a run of characters without whitespace (200 KB of letters took
 * 31 s), is kept linear by counting such runs in pieces of `MAX_RUN` characters (a piece
 * boundary may add a token: the count stays an upper estimate). After `COUNT_BUDGET_MS`
 * of its own counting, what is left is bounded by its UTF-8 bytes (no text has more tokens than
 * bytes). tiktoken is loaded (~20 MiB resident for its WebAssembly) and the encoder built
 * (~50 MiB more, ~170 ms) by the first count, so a gateway whose requests never need one
 * never pays for them.
 */
import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Tiktoken } from 'tiktoken';

/** Characters tiktoken sees in one call: under 1 ms of prose, ~1 ms of CJK. */
const SLICE_CHARS = 2_048;
/** Runs without whitespace are counted in pieces of at most this many characters. */
const MAX_RUN = 64;
/** The event loop gets a turn after this much counting. */
const YIELD_AFTER_MS = 2;
/**
 * Counting a text stops after this much of its own work (time in its slices, not the
 * turns it gave others); the rest is bounded by its bytes. Prose counts at ~4 MB a
 * second, so any prompt the data plane takes (20 MiB) is counted whole on an idle core.
 */
const COUNT_BUDGET_MS = 5_000;
/**
 * Tokens an image in a prompt is counted as: above what the providers charge for the
 * largest image they take (OpenAI high detail ~1,500–2,500, Anthropic ~1,600).
 */
export const IMAGE_TOKENS = 3_000;

let encoder: Tiktoken | undefined;

function encoding(): Tiktoken {
  encoder ??= (createRequire(import.meta.url)('tiktoken') as typeof import('tiktoken')).get_encoding('o200k_base');
  return encoder;
}

/** ASCII controls and space, NBSP and the ideographic space: where BPE's pieces end anyway. */
const isSpace = (code: number) => code <= 32 || code === 0xa0 || code === 0x3000;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** text[from, end) with a space after every MAX_RUN characters of a longer run without whitespace. */
function withRunsBroken(text: string, from: number, end: number): string {
  const pieces: string[] = [];
  let pieceStart = from;
  let run = 0;
  for (let i = from; i < end; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      run = 0;
      continue;
    }
    if (run >= MAX_RUN && !isLowSurrogate(code)) {
      pieces.push(text.slice(pieceStart, i));
      pieceStart = i;
      run = 0;
    }
    run++;
  }
  if (pieces.length === 0) return text.slice(from, end);
  pieces.push(text.slice(pieceStart, end));
  return pieces.join(' ');
}

/**
 * The tokens of a text, counted in slices between turns of the event loop.
 * @example await countTokens('Hello there world') // 3
 */
export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  let worked = 0;
  let turnStarted = performance.now();
  let total = 0;
  for (let from = 0; from < text.length; ) {
    const sliceStarted = performance.now();
    if (sliceStarted - turnStarted > YIELD_AFTER_MS) {
      worked += sliceStarted - turnStarted;
      if (worked > COUNT_BUDGET_MS) return total + Buffer.byteLength(text.slice(from));
      await nextTurn();
      turnStarted = performance.now();
    }
    let end = Math.min(text.length, from + SLICE_CHARS);
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
    total += encoding().encode_ordinary(withRunsBroken(text, from, end)).length;
    from = end;
  }
  return total;
}

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
const IMAGE_PART_TYPES = new Set(['image_url', 'image', 'input_image']);

/** What a prompt holds for counting: its text (one string) and its images. */
class PromptText {
  parts: string[] = [];
  images = 0;

  /** A message's content: a string, or parts / blocks whose text counts and whose other fields count as JSON. */
  addContent(content: unknown): void {
    if (typeof content === 'string') {
      this.parts.push(content);
      return;
    }
    if (!Array.isArray(content)) {
      if (content !== undefined && content !== null) this.parts.push(JSON.stringify(content));
      return;
    }
    for (const part of content) {
      const { type, text, content: nested } = (part ?? {}) as { type?: unknown; text?: unknown; content?: unknown };
      if (typeof type === 'string' && IMAGE_PART_TYPES.has(type)) this.images++;
      else if (typeof text === 'string') this.parts.push(text);
      else if (nested !== undefined) this.addContent(nested);
      else this.parts.push(JSON.stringify(part));
    }
  }

  /** A message or input item: its content, and every other field but its role as JSON (tool calls, names, outputs). */
  addMessage(message: unknown): void {
    if (message === null || typeof message !== 'object') {
      this.addContent(message);
      return;
    }
    for (const [field, value] of Object.entries(message)) {
      if (field === 'content') this.addContent(value);
      else if (field !== 'role' && field !== 'type') this.parts.push(typeof value === 'string' ? value : JSON.stringify(value));
    }
  }

  async tokens(): Promise<number> {
    return (await countTokens(this.parts.join('\n'))) + this.images * IMAGE_TOKENS;
  }
}

/**
 * Estimated prompt tokens of a chat request in OpenAI or Anthropic shape (or Responses
 * input items): every message's text and fields, an Anthropic-style system prompt, the
 * tool definitions, and each image as `IMAGE_TOKENS`.
 */
export async function estimatePromptTokens(messages: readonly unknown[], system?: unknown, tools?: unknown): Promise<number> {
  const prompt = new PromptText();
  if (system !== undefined) prompt.addContent(system);
  if (tools !== undefined) prompt.parts.push(JSON.stringify(tools));
  for (const message of messages) prompt.addMessage(message);
  const overhead = TOKENS_PER_REPLY + TOKENS_PER_MESSAGE * (messages.length + (system === undefined ? 0 : 1));
  return overhead + (await prompt.tokens());
}

/** Estimated tokens of an embeddings input (a string or an array of strings / token arrays). */
export async function estimateInputTokens(input: unknown): Promise<number> {
  if (typeof input === 'string') return countTokens(input);
  if (!Array.isArray(input)) return 0;
  const texts: string[] = [];
  let tokens = 0;
  for (const item of input) {
    if (Array.isArray(item)) tokens += item.length;
    else if (typeof item === 'string') texts.push(item);
  }
  return tokens + (await countTokens(texts.join('\n')));
}

/**
 * How many images a prompt holds, without counting its text: what the byte bound of a
 * prompt (no text has more tokens than bytes) must add, since an image URL is a few
 * bytes but hundreds of tokens.
 */
export function imagesIn(messages: readonly unknown[]): number {
  let images = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) if (IMAGE_PART_TYPES.has((part as { type?: unknown } | null)?.type as string)) images++;
  }
  return images;
}

/** A count done on first use and remembered: most requests never need their prompt counted. */
export function countedOnce(count: () => Promise<number>): () => Promise<number> {
  let tokens: Promise<number> | undefined;
  return () => {
    tokens ??= count();
    return tokens;
  };
}
