/**
 * Bench process: a mock OpenAI upstream on 127.0.0.1 that answers POST
 * .../chat/completions as fast as it can — the request body is read (and searched for
 * `"stream":true`), then a precomputed answer is written in one go: a JSON
 * chat.completion with content-length, or an SSE chat.completion.chunk stream (chunked,
 * as OpenAI sends it) ending with a usage chunk and [DONE]. Any API key is accepted.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beginChild } from '../child-side.ts';
import { ANSWER_BODIES, ANSWER_CONTENT_TYPES, STREAM_MARKER } from '../workload.ts';

const child = beginChild();

const jsonBody = Buffer.from(ANSWER_BODIES.json);
const jsonHeaders = {
  'content-type': ANSWER_CONTENT_TYPES.json,
  'content-length': String(jsonBody.length),
  'x-request-id': 'req_bench',
};
const streamBody = Buffer.from(ANSWER_BODIES.stream);
const streamHeaders = { 'content-type': ANSWER_CONTENT_TYPES.stream, 'cache-control': 'no-cache', 'x-request-id': 'req_bench' };
const notFound = Buffer.from(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null } }));

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': String(notFound.length) }).end(notFound);
      return;
    }
    const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    if (body.includes(STREAM_MARKER)) res.writeHead(200, streamHeaders).end(streamBody);
    else res.writeHead(200, jsonHeaders).end(jsonBody);
  });
});
// Longer than any pause between cells, so kept-alive connections are not closed under a client.
server.keepAliveTimeout = 120_000;

await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

child.onClose(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
child.ready({ url: `http://127.0.0.1:${port}` });
