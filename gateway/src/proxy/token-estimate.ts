/**
 * Token estimates with tiktoken (o200k_base), for what providers do not report: the
 * prompt of a request admitted near its budget's cap, a key's tokens-per-minute limit,
 * count_tokens for providers that cannot count, a prompt an optimised key's router
 * compares with context windows, and the output of a stream that ended before its usage
 * arrived. Estimates are always marked as such.
 *
 * Counting runs on a thread of its own (tokenizer-worker.mjs), started by the first count:
 * loading tiktoken, building its encoder and counting a long text never hold the event
 * loop, and a gateway whose requests never need a count never pays the ~70 MiB. Should
 * the thread fail, a count is bounded by the text's UTF-8 bytes (no text has more tokens
 * than bytes) and the next count starts a new thread.
 */
import { Worker } from 'node:worker_threads';

/**
 * Tokens an image in a prompt is counted as: above what the providers charge for the
 * largest image they take (OpenAI high detail ~1,500–2,500, Anthropic ~1,600).
 */
export const IMAGE_TOKENS = 3_000;

interface PendingCount {
  resolve: (tokens: number) => void;
  text: string;
}

let tokenizer: { worker: Worker; pending: Map<number, PendingCount> } | undefined;
let nextCountId = 0;

function startTokenizer(): NonNullable<typeof tokenizer> {
  const worker = new Worker(new URL('./tokenizer-worker.mjs', import.meta.url));
  const pending = new Map<number, PendingCount>();
  const started = { worker, pending };
  // Never what keeps the process alive: it serves the server's requests, which do.
  worker.unref();
  worker.on('message', ({ id, tokens }: { id: number; tokens: number }) => {
    pending.get(id)?.resolve(tokens);
    pending.delete(id);
  });
  const failed = () => {
    if (tokenizer === started) tokenizer = undefined;
    for (const { resolve, text } of pending.values()) resolve(Buffer.byteLength(text));
    pending.clear();
  };
  worker.on('error', failed);
  worker.on('exit', failed);
  return started;
}

/**
 * The tokens of a text, counted on the tokenizer's thread.
 * @example await countTokens('Hello there world') // 3
 */
export function countTokens(text: string): Promise<number> {
  if (text.length === 0) return Promise.resolve(0);
  tokenizer ??= startTokenizer();
  const id = nextCountId++;
  const { worker, pending } = tokenizer;
  return new Promise((resolve) => {
    pending.set(id, { resolve, text });
    worker.postMessage({ id, text });
  });
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
