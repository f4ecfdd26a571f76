/**
 * Token estimates with tiktoken (o200k_base), for what providers do not report: the
 * worst-case prompt size before a request is admitted, and the output of a stream
 * that ended before its usage arrived. Estimates are always marked as such.
 */
import { get_encoding, type Tiktoken } from 'tiktoken';

let encoder: Tiktoken | undefined;

function encoding(): Tiktoken {
  encoder ??= get_encoding('o200k_base');
  return encoder;
}

/** Loads the encoder ahead of the first request (it takes a few hundred ms). */
export function warmTokenizer(): void {
  encoding();
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encoding().encode_ordinary(text).length;
}

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  }
  return '';
}

/** Estimated prompt tokens of OpenAI-format chat messages (text parts only). */
export function estimateChatPromptTokens(messages: readonly unknown[]): number {
  let total = TOKENS_PER_REPLY;
  for (const message of messages) {
    const { content, name } = (message ?? {}) as { content?: unknown; name?: unknown };
    total += TOKENS_PER_MESSAGE + countTokens(textOf(content)) + (typeof name === 'string' ? countTokens(name) : 0);
  }
  return total;
}
