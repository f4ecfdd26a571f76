// Splits a server-sent-events byte stream into whole events without waiting for the
// end: each complete event (terminated by a blank line) is handed on as it arrives.
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

/** The data payload of one event (`data:` lines joined), or undefined if it has none. */
export function sseData(event: string): string | undefined {
  let data: string | undefined;
  for (const line of event.split('\n')) {
    if (line.startsWith('data:')) {
      const value = line.slice(line[5] === ' ' ? 6 : 5);
      data = data === undefined ? value : `${data}\n${value}`;
    }
  }
  return data;
}
