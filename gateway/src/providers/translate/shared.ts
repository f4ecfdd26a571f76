/**
 * Small pieces every translator needs: tool-argument JSON, data URLs, OpenAI message
 * texts, error bodies of unknown shape, and request objects without unset fields.
 */
import type { OpenAIRefusalPart, OpenAITextPart } from './openai-types.ts';

/** Drops the keys whose value is undefined, so a translated request carries only what was set. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool call's JSON-string arguments as an object. Arguments that do not parse to an
 * object (a call cut short by the token limit) become `{}`: formats that carry the
 * input as an object have no place for broken JSON.
 */
export function parseToolArguments(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The texts of an OpenAI message's content, whether a string or text (and refusal) parts. */
export function textsOf(content: string | Array<OpenAITextPart | OpenAIRefusalPart> | null | undefined): string[] {
  if (content == null) return [];
  if (typeof content === 'string') return [content];
  return content.map((part) => (part.type === 'text' ? part.text : part.refusal));
}

/** `data:image/png;base64,AAAA` → `{ mediaType: 'image/png', data: 'AAAA' }`; undefined for other URLs. */
export function parseBase64DataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

/**
 * The human message in a provider's error body. OpenAI, Anthropic and Gemini all put it
 * at `error.message`; a bare string body is its own message.
 */
export function upstreamErrorMessage(status: number, body: unknown): string {
  if (typeof body === 'string' && body.trim() !== '') return body;
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return `The provider answered with HTTP status ${status}`;
}

/** Seconds since the epoch, the `created` field of OpenAI answers and chunks. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
