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
import { relay, type RelayDeps } from './relay.ts';
import { countedOnce, estimateInputTokens, estimatePromptTokens } from './token-estimate.ts';
import { sendJson } from './respond.ts';

/** One exchange as a route sees it: who calls, their checked body, the HTTP request and response. */
export interface RouteExchange<Body> {
  principal: Principal;
  body: Body;
  request: IncomingMessage;
  response: ServerResponse;
}

export interface DataPlaneRoute<Body = unknown> {
  /** The wire format the route's callers speak; errors are answered in it. */
  format: WireFormatId;
  /** The request body's schema (POST routes). */
  body?: z.ZodType<Body>;
  handle(exchange: RouteExchange<Body>): Promise<void>;
}

/** A route whose handler is typed by its body schema. */
const route = <S extends z.ZodType>(format: WireFormatId, body: S, handle: (exchange: RouteExchange<z.output<S>>) => Promise<void>) =>
  ({ format, body, handle }) as DataPlaneRoute;

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
  return new Map<string, DataPlaneRoute>([
    [
      'POST /chat/completions',
      route('openai', ChatCompletionBody, ({ principal, body, request, response }) =>
        relay(principal, request, response, {
          caller: 'openai',
          operation: 'chat',
          endpoint: 'chat.completions',
          body,
          model: body.model,
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(body.messages)),
          maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
        }, deps),
      ),
    ],
    [
      'POST /messages',
      route('anthropic', MessagesBody, ({ principal, body, request, response }) =>
        relay(principal, request, response, {
          caller: 'anthropic',
          operation: 'chat',
          endpoint: 'messages',
          body,
          model: body.model,
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(body.messages, body.system)),
          maxOutputTokens: body.max_tokens,
        }, deps),
      ),
    ],
    [
      'POST /messages/count_tokens',
      route('anthropic', CountTokensBody, async ({ principal, body, request, response }) => {
        const promptTokens = estimatePromptTokens(body.messages, body.system);
        if (deps.upstreams.resolve(principal, body.model, new Date()).adapter.format !== 'anthropic') {
          // Only Anthropic counts natively; anyone else gets the tiktoken estimate.
          return sendJson(response, 200, { input_tokens: promptTokens });
        }
        return relay(principal, request, response, {
          caller: 'anthropic',
          operation: 'count_tokens',
          endpoint: 'messages.count_tokens',
          body,
          model: body.model,
          stream: false,
          promptTokens: () => promptTokens,
          maxOutputTokens: 0,
        }, deps);
      }),
    ],
    [
      'POST /embeddings',
      route('openai', EmbeddingsBody, ({ principal, body, request, response }) =>
        relay(principal, request, response, {
          caller: 'openai',
          operation: 'embeddings',
          endpoint: 'embeddings',
          body,
          model: body.model,
          stream: false,
          promptTokens: countedOnce(() => estimateInputTokens(body.input)),
          maxOutputTokens: 0,
        }, deps),
      ),
    ],
    [
      'POST /responses',
      route('openai', ResponsesBody, ({ principal, body, request, response }) => {
        const input = typeof body.input === 'string' ? [{ content: body.input }] : body.input;
        return relay(principal, request, response, {
          caller: 'openai',
          operation: 'responses',
          endpoint: 'responses',
          body,
          model: body.model,
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(input, body.instructions ?? undefined)),
          maxOutputTokens: body.max_output_tokens ?? undefined,
        }, deps);
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
