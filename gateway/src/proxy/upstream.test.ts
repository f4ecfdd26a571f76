import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamError } from '@spendgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorAgent } from '../providers/operator-upstreams.ts';
import { sendUpstream } from './upstream.ts';

/** A provider on 127.0.0.1 whose answers are scripted per path. */
let server: Server;
let base: string;
const EVENTS = 400;
/** When the provider had written the last byte of its latest stream. */
let streamWrittenAt = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => (body += part.toString()));
    request.on('end', () => {
      switch (request.url) {
        case '/echo':
          response.writeHead(201, { 'content-type': 'application/json', 'x-echo': 'yes' });
          response.end(JSON.stringify({ received: JSON.parse(body) }));
          return;
        case '/many-chunks': {
          // 400 events of 64 KiB (26 MB): far more than the high-water mark and the socket buffers.
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          let sent = 0;
          const writeMore = () => {
            while (sent < EVENTS) {
              sent += 1;
              if (!response.write(`data: ${String(sent).padStart(5, '0')}${'x'.repeat(65_536)}\n\n`)) {
                response.once('drain', writeMore);
                return;
              }
            }
            response.end(() => (streamWrittenAt = performance.now()));
          };
          writeMore();
          return;
        }
        case '/cut':
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"partial":');
          setTimeout(() => response.socket?.destroy(), 20);
          return;
        case '/silent':
          return; // never answers
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const send = (path: string, timeoutMs = 5_000) =>
  sendUpstream(`${base}${path}`, { headers: { 'content-type': 'application/json' }, body: '{"model":"m"}', timeoutMs, dispatcher: operatorAgent });

describe('sending to a provider', () => {
  it('answers the status and headers, then the whole body as text', async () => {
    const response = await send('/echo');
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-echo']).toBe('yes');
    expect(JSON.parse((await response.bytes()).toString())).toEqual({ received: { model: 'm' } });
  });

  it('reads a long body whole, and streams one chunk by chunk with the provider paused while the reader lags', async () => {
    const whole = (await (await send('/many-chunks')).bytes()).toString();
    expect(whole.match(/^data: /gm)).toHaveLength(EVENTS);

    const stream = await send('/many-chunks');
    let text = '';
    let halfReadAt = 0;
    for await (const chunk of stream.chunks()) {
      text += chunk.toString();
      if (!halfReadAt && text.length > (EVENTS / 2) * 65_536) halfReadAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1)); // a slow caller
    }
    const events = text.match(/^data: (\d{5})/gm)!.map((line) => Number(line.slice(6)));
    expect(events).toEqual(Array.from({ length: EVENTS }, (_, index) => index + 1));
    // The provider could not finish before the caller had read half (13 MB, more than any socket buffer holds).
    expect(streamWrittenAt).toBeGreaterThan(halfReadAt);
  });

  it('types failures: unreachable is 502, no answer in time 504, a body cut short 502', async () => {
    const unreachable = await sendUpstream('http://127.0.0.1:1/v1', { headers: {}, body: '{}', timeoutMs: 1_000, dispatcher: operatorAgent }).catch((error) => error);
    expect(unreachable).toBeInstanceOf(UpstreamError);
    expect(unreachable).toMatchObject({ statusCode: 502, code: 'upstream_unavailable' });

    const silent = await send('/silent', 200).catch((error) => error);
    expect(silent).toMatchObject({ statusCode: 504, code: 'upstream_timeout' });

    const cut = await send('/cut');
    expect(cut.statusCode).toBe(200);
    await expect(cut.bytes()).rejects.toMatchObject({ statusCode: 502 });
  });

  it('stops a stream when the caller leaves', async () => {
    const stream = await send('/many-chunks');
    const seen: number[] = [];
    const reading = (async () => {
      for await (const chunk of stream.chunks()) {
        seen.push(chunk.length);
        if (seen.length === 1) stream.abort();
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(UpstreamError);
    expect(seen.length).toBeGreaterThan(0);
  });
});
