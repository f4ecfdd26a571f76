/**
 * Test support: reads translated Anthropic events back through the real
 * @anthropic-ai/sdk stream parser and accumulator, as an Anthropic caller would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import type { AnthropicMessage } from './anthropic-types.ts';
import type { StreamEvent } from './types.ts';

/** Serves the events as an SSE response on a local port and returns the SDK's `finalMessage()`. */
export async function finalMessageFromAnthropicSdk(events: StreamEvent[]): Promise<AnthropicMessage> {
  const body = events.map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: 'test-key', maxRetries: 0 });
    const stream = client.messages.stream({ model: 'any', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    return await stream.finalMessage();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
