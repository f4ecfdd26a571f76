// Answers on the data plane's node:http response: a JSON body (or JSON text or bytes
// passed through) with its length, in one write.
import type { ServerResponse } from 'node:http';

const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(
  response: ServerResponse,
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
  contentType = JSON_TYPE,
): void {
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  response.writeHead(statusCode, Object.assign({ 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }, headers));
  response.end(payload);
}
