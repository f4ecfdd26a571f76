/**
 * Token estimates with tiktoken (o200k_base), for what providers do not report: the
 * worst-case prompt size before a request is admitted, and the output of a stream
 * that ended before its usage arrived. Estimates are always marked as such.
 * tiktoken is loaded (~20 MiB resident for its WebAssembly) and the encoder built (~50
 * MiB more, ~170 ms) by the first count, so a gateway whose requests never need one
 * (budgets with room, providers that report usage) never pays for them.
 */
import { createRequire } from 'node:module';
import type { Tiktoken } from 'tiktoken';

let encoder: Tiktoken | undefined;

function encoding(): Tiktoken {
  // A synchronous require, so that counting stays synchronous.
  encoder ??= (createRequire(import.meta.url)('tiktoken') as typeof import('tiktoken')).get_encoding('o200k_base');
  return encoder;
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encoding().encode_ordinary(text).length;
}

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

/** The text of a message's content: a string, or the text parts / blocks of an array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      const { text, content: nested } = (part ?? {}) as { text?: unknown; content?: unknown };
      return typeof text === 'string' ? text : textOf(nested);
    })
    .join('\n');
}

/**
 * Estimated prompt tokens of chat messages in OpenAI or Anthropic shape (text only),
 * plus an Anthropic-style top-level system prompt when given.
 */
export function estimatePromptTokens(messages: readonly unknown[], system?: unknown): number {
  let total = TOKENS_PER_REPLY + (system === undefined ? 0 : TOKENS_PER_MESSAGE + countTokens(textOf(system)));
  for (const message of messages) {
    const { content, name } = (message ?? {}) as { content?: unknown; name?: unknown };
    total += TOKENS_PER_MESSAGE + countTokens(textOf(content)) + (typeof name === 'string' ? countTokens(name) : 0);
  }
  return total;
}

/** Estimated tokens of an embeddings input (a string or an array of strings / token arrays). */
export function estimateInputTokens(input: unknown): number {
  if (typeof input === 'string') return countTokens(input);
  if (!Array.isArray(input)) return 0;
  return input.reduce<number>((sum, item) => sum + (Array.isArray(item) ? item.length : estimateInputTokens(item)), 0);
}

/** A count done on first use and remembered: most requests never need their prompt counted. */
export function countedOnce(count: () => number): () => number {
  let tokens: number | undefined;
  return () => {
    tokens ??= count();
    return tokens;
  };
}
