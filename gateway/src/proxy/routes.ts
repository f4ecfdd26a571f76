/**
 * The data plane's surfaces. OpenAI format: chat completions, embeddings, responses,
 * models. Anthropic format: messages and count_tokens. Each parses its body once,
 * estimates the prompt for admission, and hands over to the relay.
 */
import { priceVersionAt, type PriceCatalog } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { WireFormatId } from '../providers/formats/index.ts';
import { useZod } from '../zod-provider.ts';
import { relay, type RelayDeps } from './relay.ts';
import { countedOnce, estimateInputTokens, estimatePromptTokens } from './token-estimate.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire format a route's callers speak; errors are answered in it. */
    format?: WireFormatId;
  }
}

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

export const dataPlaneRoutes =
  (deps: RelayDeps & { catalog: PriceCatalog }): FastifyPluginAsync =>
  async (app) => {
    const routes = useZod(app);
    const openai = { format: 'openai' as const };
    const anthropic = { format: 'anthropic' as const };

    routes.post('/chat/completions', { config: openai, schema: { body: ChatCompletionBody } }, async (request, reply) => {
      const body = request.body;
      return relay(request.principal!, reply, {
        caller: 'openai',
        operation: 'chat',
        endpoint: 'chat.completions',
        body,
        model: body.model,
        stream: body.stream === true,
        promptTokens: countedOnce(() => estimatePromptTokens(body.messages)),
        maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      }, deps);
    });

    routes.post('/messages', { config: anthropic, schema: { body: MessagesBody } }, async (request, reply) => {
      const body = request.body;
      return relay(request.principal!, reply, {
        caller: 'anthropic',
        operation: 'chat',
        endpoint: 'messages',
        body,
        model: body.model,
        stream: body.stream === true,
        promptTokens: countedOnce(() => estimatePromptTokens(body.messages, body.system)),
        maxOutputTokens: body.max_tokens,
      }, deps);
    });

    routes.post('/messages/count_tokens', { config: anthropic, schema: { body: CountTokensBody } }, async (request, reply) => {
      const body = request.body;
      const principal = request.principal!;
      const promptTokens = estimatePromptTokens(body.messages, body.system);
      if (deps.upstreams.resolve(principal, body.model, new Date()).adapter.format !== 'anthropic') {
        // Only Anthropic counts natively; anyone else gets the tiktoken estimate.
        return reply.send({ input_tokens: promptTokens });
      }
      return relay(principal, reply, {
        caller: 'anthropic',
        operation: 'count_tokens',
        endpoint: 'messages.count_tokens',
        body,
        model: body.model,
        stream: false,
        promptTokens: () => promptTokens,
        maxOutputTokens: 0,
      }, deps);
    });

    routes.post('/embeddings', { config: openai, schema: { body: EmbeddingsBody } }, async (request, reply) => {
      const body = request.body;
      return relay(request.principal!, reply, {
        caller: 'openai',
        operation: 'embeddings',
        endpoint: 'embeddings',
        body,
        model: body.model,
        stream: false,
        promptTokens: countedOnce(() => estimateInputTokens(body.input)),
        maxOutputTokens: 0,
      }, deps);
    });

    routes.post('/responses', { config: openai, schema: { body: ResponsesBody } }, async (request, reply) => {
      const body = request.body;
      const input = typeof body.input === 'string' ? [{ content: body.input }] : body.input;
      return relay(request.principal!, reply, {
        caller: 'openai',
        operation: 'responses',
        endpoint: 'responses',
        body,
        model: body.model,
        stream: body.stream === true,
        promptTokens: countedOnce(() => estimatePromptTokens(input, body.instructions ?? undefined)),
        maxOutputTokens: body.max_output_tokens ?? undefined,
      }, deps);
    });

    // The models this key may use, in the caller's format (Anthropic's SDK sends
    // `anthropic-version`).
    routes.get('/models', { config: openai }, async (request, reply) => {
      const now = new Date();
      const models = deps.upstreams.modelsFor(request.principal!, now);
      const createdAt = priceVersionAt(deps.catalog, now)?.effectiveFrom ?? now.toISOString();
      if (request.headers['anthropic-version']) {
        return reply.send({
          data: models.map(({ id }) => ({ type: 'model', id, display_name: id, created_at: createdAt })),
          has_more: false,
          first_id: models[0]?.id ?? null,
          last_id: models.at(-1)?.id ?? null,
        });
      }
      const created = Math.floor(Date.parse(createdAt) / 1000);
      return reply.send({
        object: 'list',
        data: models.map(({ id, ownedBy }) => ({ id, object: 'model', created, owned_by: ownedBy })),
      });
    });
  };
