// Server-sent events: splits a byte stream into whole events without waiting for the
// end (each complete event is handed on as it arrives) and reads one event's name and
// data without parsing the data. Bytes become text through node's StringDecoder, which
// keeps a character split between chunks for the next (several times cheaper per chunk
// than TextDecoder's streaming decode); a byte-order mark opening the stream is dropped,
// as the SSE format says.
import { StringDecoder } from 'node:string_decoder';
import type { RawStreamEvent } from '../providers/formats/index.ts';

export class SseSplitter {
  #pending = '';
  #started = false;
  readonly #decoder = new StringDecoder('utf8');

  /** The complete events in this chunk (with their framing), holding back a partial one. */
  push(chunk: Buffer): string[] {
    let text = this.#pending + this.#decoder.write(chunk);
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const pending = text.includes('\r') ? text.replace(/\r\n/g, '\n') : text;
    const events: string[] = [];
    let start = 0;
    let boundary = pending.indexOf('\n\n');
    while (boundary !== -1) {
      events.push(pending.slice(start, boundary + 2));
      start = boundary + 2;
      boundary = pending.indexOf('\n\n', start);
    }
    this.#pending = start === 0 ? pending : pending.slice(start);
    return events;
  }

  /** Whatever is left when the stream ends (an unterminated last event). */
  rest(): string {
    return this.#pending + this.#decoder.end();
  }
}

/** The event's name and its data text (data lines joined), or undefined when it has no data. */
export function readSseEvent(raw: string): RawStreamEvent | undefined {
  let name: string | undefined;
  let data: string | undefined;
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf('\n', start);
    if (end === -1) end = raw.length;
    if (raw.startsWith('data:', start)) {
      const value = raw.slice(start + (raw.charCodeAt(start + 5) === 32 ? 6 : 5), end);
      data = data === undefined ? value : `${data}\n${value}`;
    } else if (raw.startsWith('event:', start)) {
      name = raw.slice(start + 6, end).trim();
    }
    start = end + 1;
  }
  if (data === undefined) return undefined;
  return name === undefined ? { data } : { event: name, data };
}
