import { describe, expect, it } from 'vitest';
import { readSseEvent, SseSplitter } from './sse.ts';

const bytes = (text: string) => Buffer.from(text);

describe('SseSplitter', () => {
  it('hands on each complete event as its chunk arrives and holds back a partial one', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(bytes('data: {"a":1}\n\ndata: {"b"'))).toEqual(['data: {"a":1}\n\n']);
    expect(splitter.push(bytes(':2}\n\ndata: [DONE]\n\n'))).toEqual(['data: {"b":2}\n\n', 'data: [DONE]\n\n']);
    expect(splitter.rest()).toBe('');
  });

  it('keeps a character whose bytes are split between chunks whole', () => {
    const splitter = new SseSplitter();
    const event = bytes('data: {"content":"naïve €"}\n\n');
    const euroStart = event.indexOf(0xe2);
    expect(splitter.push(event.subarray(0, euroStart + 1))).toEqual([]);
    expect(splitter.push(event.subarray(euroStart + 1))).toEqual(['data: {"content":"naïve €"}\n\n']);
  });

  it('reads CRLF framing as LF and drops a byte-order mark opening the stream', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(bytes('\uFEFFevent: ping\r\ndata: x\r\n\r\n'))).toEqual(['event: ping\ndata: x\n\n']);
    expect(splitter.push(bytes('data: \uFEFFy\n\n'))).toEqual(['data: \uFEFFy\n\n']);
  });

  it('answers an unterminated last event at the end', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(bytes('data: last'))).toEqual([]);
    expect(splitter.rest()).toBe('data: last');
  });
});

describe('readSseEvent', () => {
  it('reads the event name and joins data lines', () => {
    expect(readSseEvent('event: message_delta\ndata: {"a":\ndata: 1}\n\n')).toEqual({ event: 'message_delta', data: '{"a":\n1}' });
    expect(readSseEvent(': comment\n\n')).toBeUndefined();
  });
});
