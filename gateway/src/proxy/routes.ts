/**
 * The data plane's surfaces, as a table the data plane's handler (index.ts) dispatches
 * on. OpenAI format: chat completions, embeddings, responses, models. Anthropic format:
 * messages and count_tokens. Each names its body's schema, estimates the prompt for
 * admission, and hands over to the relay.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { priceVersionAt, type PriceCatalog } from '@spendgate/core';
import { z } from 'zod';
import type { WireFormatId } from '../providers/formats/index.ts';
import type { Principal } from '../services/principals.ts';
import { type RelayCall, relay, type RelayDeps } from './relay.ts';
import { sendJson } from './respond.ts';
import { countedOnce, estimateInputTokens, estimatePromptTokens } from './token-estimate.ts';

/** One exchange as a route sees it: who calls, their checked body (and its bytes), the HTTP request and response. */
export interface RouteExchange<Body> {
  principal: Principal;
  body: Body;
  bodyBytes: Buffer;
  request: IncomingMessage;
  response: ServerResponse;
}

export interface DataPlaneRoute<Body = unknown> {
  /** The wire format the route's callers speak; errors are answered in it. */
  format: WireFormatId;
  /**
   * The request body's schema (POST routes). It checks and never changes: a body nothing
   * else changes goes to the provider as the caller's bytes, so a default or transform
   * here would never reach it.
   */
  body?: z.ZodType<Body>;
  handle(exchange: RouteExchange<Body>): Promise<void>;
}

/** What a route says of its call; the caller's format, the body (and its bytes) and its model come from the route. */
type RouteCall = Omit<RelayCall, 'caller' | 'body' | 'bodyBytes' | 'model'>;

const positiveInt = z.number().int().positive();

const ChatCompletionBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
});

const MessagesBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()).min(1),
  max_tokens: positiveInt,
  system: z.unknown().optional(),
  stream: z.boolean().nullish(),
});

const CountTokensBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()).min(1),
  system: z.unknown().optional(),
});

const EmbeddingsBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.unknown()).min(1)]),
});

const ResponsesBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.unknown())]),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: positiveInt.nullish(),
});

/** The routes by `METHOD /path` (below /v1). */
export function dataPlaneRoutes(deps: RelayDeps & { catalog: PriceCatalog }): Map<string, DataPlaneRoute> {
  /** A route whose body names a model; its handler relays the body in the route's format. */
  const relayed = <S extends z.ZodType<{ model: string }>>(
    format: WireFormatId,
    schema: S,
    handle: (exchange: RouteExchange<z.output<S>>, relay: (call: RouteCall) => Promise<void>) => Promise<void>,
  ): DataPlaneRoute =>
    ({
      format,
      body: schema,
      handle: (exchange: RouteExchange<z.output<S>>) =>
        handle(exchange, (call) =>
          relay(
            exchange.principal,
            exchange.request,
            exchange.response,
            {
              caller: format,
              operation: call.operation,
              endpoint: call.endpoint,
              body: exchange.body,
              bodyBytes: exchange.bodyBytes,
              model: exchange.body.model,
              stream: call.stream,
              promptTokens: call.promptTokens,
              maxOutputTokens: call.maxOutputTokens,
            },
            deps,
          ),
        ),
    }) as DataPlaneRoute;

  return new Map<string, DataPlaneRoute>([
    [
      'POST /chat/completions',
      relayed('openai', ChatCompletionBody, ({ body }, relay) =>
        relay({
          operation: 'chat',
          endpoint: 'chat.completions',
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(body.messages)),
          maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
        }),
      ),
    ],
    [
      'POST /messages',
      relayed('anthropic', MessagesBody, ({ body }, relay) =>
        relay({
          operation: 'chat',
          endpoint: 'messages',
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(body.messages, body.system)),
          maxOutputTokens: body.max_tokens,
        }),
      ),
    ],
    [
      'POST /messages/count_tokens',
      relayed('anthropic', CountTokensBody, async ({ principal, body, response }, relay) => {
        const promptTokens = estimatePromptTokens(body.messages, body.system);
        if (deps.upstreams.resolve(principal, body.model, new Date()).adapter.format !== 'anthropic') {
          // Only Anthropic counts natively; anyone else gets the tiktoken estimate.
          return sendJson(response, 200, { input_tokens: promptTokens });
        }
        return relay({ operation: 'count_tokens', endpoint: 'messages.count_tokens', stream: false, promptTokens: () => promptTokens, maxOutputTokens: 0 });
      }),
    ],
    [
      'POST /embeddings',
      relayed('openai', EmbeddingsBody, ({ body }, relay) =>
        relay({
          operation: 'embeddings',
          endpoint: 'embeddings',
          stream: false,
          promptTokens: countedOnce(() => estimateInputTokens(body.input)),
          maxOutputTokens: 0,
        }),
      ),
    ],
    [
      'POST /responses',
      relayed('openai', ResponsesBody, ({ body }, relay) => {
        const input = typeof body.input === 'string' ? [{ content: body.input }] : body.input;
        return relay({
          operation: 'responses',
          endpoint: 'responses',
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(input, body.instructions ?? undefined)),
          maxOutputTokens: body.max_output_tokens ?? undefined,
        });
      }),
    ],
    [
      // The models this key may use, in the caller's format (Anthropic's SDK sends `anthropic-version`).
      'GET /models',
      {
        format: 'openai',
        handle: async ({ principal, request, response }) => {
          const now = new Date();
          const models = deps.upstreams.modelsFor(principal, now);
          const createdAt = priceVersionAt(deps.catalog, now)?.effectiveFrom ?? now.toISOString();
          if (request.headers['anthropic-version']) {
            return sendJson(response, 200, {
              data: models.map(({ id }) => ({ type: 'model', id, display_name: id, created_at: createdAt })),
              has_more: false,
              first_id: models[0]?.id ?? null,
              last_id: models.at(-1)?.id ?? null,
            });
          }
          const created = Math.floor(Date.parse(createdAt) / 1000);
          return sendJson(response, 200, {
            object: 'list',
            data: models.map(({ id, ownedBy }) => ({ id, object: 'model', created, owned_by: ownedBy })),
          });
        },
      },
    ],
  ]);
}
