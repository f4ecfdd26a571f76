/**
 * Bench process: the baseline a gateway is compared with — a minimal pass-through
 * reverse proxy (node:http server, undici client as the gateway uses) that forwards the
 * request to UPSTREAM_URL and streams the answer back, with no auth, parsing or
 * metering. The request body is read whole first, as any gateway must (it is small);
 * the answer is piped through as it arrives, so streams stay streams.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { beginChild } from '../child-side.ts';

const child = beginChild();

const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error('UPSTREAM_URL is not set');

/** Hop-by-hop headers, which a proxy does not forward. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'host']);

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

const server = createServer(async (req, res) => {
  try {
    const body = await readBody(req);
    const answer = await request(`${upstream}${req.url}`, {
      method: req.method as 'POST',
      headers: endToEnd(req.headers),
      body: req.method === 'GET' || req.method === 'HEAD' ? null : body,
    });
    res.writeHead(answer.statusCode, endToEnd(answer.headers));
    await pipeline(answer.body, res);
  } catch {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end();
  }
});
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
