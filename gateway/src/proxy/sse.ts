// Server-sent events: splits a byte stream into whole events without waiting for the
// end (each complete event is handed on as it arrives) and parses one event.
import type { StreamEvent } from '../providers/translate/types.ts';

export class SseSplitter {
  #pending = '';
  readonly #decoder = new TextDecoder();

  /** The complete events in this chunk (with their framing), holding back a partial one. */
  push(chunk: Uint8Array): string[] {
    this.#pending += this.#decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    const events: string[] = [];
    let boundary = this.#pending.indexOf('\n\n');
    while (boundary !== -1) {
      events.push(this.#pending.slice(0, boundary + 2));
      this.#pending = this.#pending.slice(boundary + 2);
      boundary = this.#pending.indexOf('\n\n');
    }
    return events;
  }

  /** Whatever is left when the stream ends (an unterminated last event). */
  rest(): string {
    return this.#pending + this.#decoder.decode();
  }
}

/** The event's name and its data (JSON-parsed when it is JSON, else the raw text). */
export function parseSseEvent(raw: string): StreamEvent | undefined {
  let name: string | undefined;
  let data: string | undefined;
  for (const line of raw.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) {
      const value = line.slice(line[5] === ' ' ? 6 : 5);
      data = data === undefined ? value : `${data}\n${value}`;
    }
  }
  if (data === undefined) return undefined;
  let parsed: unknown = data;
  try {
    parsed = JSON.parse(data);
  } catch {
    // Not JSON (e.g. OpenAI's `[DONE]`): keep the text.
  }
  return name === undefined ? { data: parsed } : { event: name, data: parsed };
}
