// Stream events as they come off the wire, before JSON parsing: the parse itself, and a
// cheap read of one string field for events whose only news is a piece of text.
import type { StreamEvent } from '../translate/types.ts';

/** One server-sent event as received: its `event:` name (if any) and its data text. */
export interface RawStreamEvent {
  event?: string;
  data: string;
}

/**
 * The event with its data JSON-parsed when it is a JSON object or array, else the raw
 * text (e.g. OpenAI's `[DONE]`, recognised without a parse that would throw).
 */
export function parseStreamEvent(raw: RawStreamEvent): StreamEvent {
  let data: unknown = raw.data;
  const first = raw.data.trimStart().charCodeAt(0);
  if (first === 0x7b /* { */ || (first === 0x5b /* [ */ && raw.data !== '[DONE]')) {
    try {
      data = JSON.parse(raw.data);
    } catch {
      // Not JSON after all: keep the text.
    }
  }
  return raw.event === undefined ? { data } : { event: raw.event, data };
}

/**
 * The first string value of `key` in compact JSON text, read without parsing the whole:
 * '' when the key is not there at all, undefined when it is there in another shape
 * (not a string, or spaced `"key": "…"`) — then the caller must parse.
 *
 * @example stringField('{"delta":{"content":"Hi"}}', 'content') // 'Hi'
 */
export function stringField(json: string, key: string): string | undefined {
  const quotedKey = `"${key}"`;
  const at = json.indexOf(`${quotedKey}:"`);
  if (at === -1) return json.includes(quotedKey) ? undefined : '';
  const start = at + quotedKey.length + 1;
  let end = start + 1;
  let escaped = false;
  for (; end < json.length; end++) {
    const char = json.charCodeAt(end);
    if (char === 0x22 /* " */) break;
    if (char === 0x5c /* \ */) {
      escaped = true;
      end++;
    }
  }
  if (end >= json.length) return undefined;
  const literal = json.slice(start, end + 1);
  if (!escaped) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}
