/**
 * The data plane's surfaces, as a table the data plane's handler (index.ts) dispatches
 * on. OpenAI format: chat completions, embeddings, responses, models. Anthropic format:
 * messages and count_tokens. Each names its body's schema, estimates the prompt for
 * admission, and hands over to the relay.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type PriceCatalog, priceVersionAt } from '@spendgate/core';
import { z } from 'zod';
import { ModelName } from '../model-id.ts';
import type { WireFormatId } from '../providers/formats/index.ts';
import { countsTokensFor } from '../providers/translation.ts';
import { modelOverrideFor, type Principal } from './principals.ts';
import { type RelayCall, type RelayDeps, relay } from './relay.ts';
import { sendJson } from './respond.ts';
import { countedOnce, estimateInputTokens, estimatePromptTokens, IMAGE_TOKENS, imagesIn } from './token-estimate.ts';

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
  /** The surface's name in usage events and metrics, e.g. `chat.completions`. */
  endpoint: string;
  /**
   * The request body's schema (POST routes). It checks and never changes: a body nothing
   * else changes goes to the provider as the caller's bytes, so a default or transform
   * here would never reach it.
   */
  body?: z.ZodType<Body>;
  handle(exchange: RouteExchange<Body>): Promise<void>;
}

/** What a route says of its call; the caller's format, the body (and its bytes), its model and headers come from the route. */
type RouteCall = Omit<RelayCall, 'caller' | 'endpoint' | 'body' | 'bodyBytes' | 'model' | 'promptTokenBound' | 'choices' | 'callerHeaders'> & {
  /** Images in the prompt: its byte bound adds their tokens. */
  images?: number;
  choices?: number;
};

const positiveInt = z.number().int().positive();
/** An output limit: no model answers ten million tokens, and admission multiplies it by the answers asked for. */
const outputLimit = positiveInt.max(10_000_000);

/**
 * An object whose string field `key` says which further fields it must carry (`shapes`,
 * by value of `key`); with any other value it passes as it is, for the provider to judge.
 * Every shape is loose: fields the APIs add later pass through.
 * @example byKind('type', { text: { text: z.string() } }) // {type:'text'} fails at .text
 */
function byKind(key: string, shapes: Record<string, z.ZodRawShape>, common: z.ZodRawShape = {}) {
  const checks = new Map(Object.entries(shapes).map(([kind, shape]) => [kind, z.looseObject(shape)]));
  return z.looseObject({ ...common, [key]: z.string() }).superRefine((value, context) => {
    const result = checks.get(value[key] as string)?.safeParse(value);
    if (result && !result.success) for (const issue of result.error.issues) context.addIssue({ ...issue });
  });
}

/** A JSON object whose fields are the provider's business (a tool's JSON schema, options). */
const JsonObject = z.looseObject({});
const Strings = z.array(z.string());

// OpenAI: chat messages, their content parts, tool calls and tools.
const OpenAIContent = z.union(
  [
    z.string(),
    z.array(
      byKind('type', {
        text: { text: z.string() },
        image_url: { image_url: z.looseObject({ url: z.string() }) },
        input_audio: { input_audio: z.looseObject({ data: z.string(), format: z.string() }) },
        file: { file: z.looseObject({ file_data: z.string().optional() }) },
      }),
    ),
  ],
  { error: 'must be a string or an array of content parts' },
);
const OpenAIToolCall = byKind('type', { function: { function: z.looseObject({ name: z.string(), arguments: z.string() }) } }, { id: z.string() });
const OpenAIMessage = byKind(
  'role',
  {
    system: { content: OpenAIContent },
    developer: { content: OpenAIContent },
    user: { content: OpenAIContent },
    assistant: { content: OpenAIContent.nullish(), tool_calls: z.array(OpenAIToolCall).nullish() },
    tool: { content: OpenAIContent, tool_call_id: z.string() },
  },
  { name: z.string().optional() },
);
const OpenAITools = z.array(
  byKind('type', { function: { function: z.looseObject({ name: z.string(), description: z.string().nullish(), parameters: JsonObject.nullish() }) } }),
);
const OpenAIToolChoice = z.union([z.string(), byKind('type', { function: { function: z.looseObject({ name: z.string() }) } })], {
  error: 'must be none, auto, required or an object naming a tool',
});
const OpenAIResponseFormat = byKind('type', { json_schema: { json_schema: z.looseObject({ schema: JsonObject.nullish() }) } });

// Anthropic: messages, their content blocks, the system prompt, tools.
const ImageSource = byKind('type', { base64: { media_type: z.string(), data: z.string() }, url: { url: z.string() } });
const DocumentSource = byKind('type', { base64: { data: z.string() }, text: { data: z.string() }, url: { url: z.string() } });
const ToolResultPart = byKind('type', { text: { text: z.string() }, image: { source: ImageSource } });
const AnthropicBlock = byKind('type', {
  text: { text: z.string() },
  image: { source: ImageSource },
  document: { source: DocumentSource, title: z.string().nullish() },
  tool_use: { id: z.string(), name: z.string() },
  tool_result: {
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(ToolResultPart)], { error: 'must be a string or an array of content blocks' }).optional(),
  },
});
const AnthropicMessage = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(AnthropicBlock)], { error: 'must be a string or an array of content blocks' }),
});
const AnthropicSystem = z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))], {
  error: 'must be a string or an array of text blocks',
});
const AnthropicTools = z.array(z.looseObject({ name: z.string(), description: z.string().optional(), input_schema: JsonObject.optional() }));
const AnthropicToolChoice = byKind('type', { tool: { name: z.string() } });

/**
 * The bodies of the data plane. They check the shape of every field the gateway reads,
 * estimates or translates, so nothing downstream meets a wrong type; the model is a
 * printable id of at most 256 characters, checked before anything is sent or metered.
 */
const ChatCompletionBody = z.looseObject({
  model: ModelName,
  messages: z.array(OpenAIMessage).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: outputLimit.nullish(),
  max_completion_tokens: outputLimit.nullish(),
  tools: OpenAITools.nullish(),
  tool_choice: OpenAIToolChoice.nullish(),
  response_format: OpenAIResponseFormat.nullish(),
  stop: z.union([z.string(), Strings], { error: 'must be a string or an array of strings' }).nullish(),
  n: positiveInt.max(128).nullish(),
});

const anthropicPrompt = {
  model: ModelName,
  messages: z.array(AnthropicMessage).min(1),
  system: AnthropicSystem.nullish(),
  tools: AnthropicTools.nullish(),
  tool_choice: AnthropicToolChoice.optional(),
};

const MessagesBody = z.looseObject({
  ...anthropicPrompt,
  max_tokens: outputLimit,
  stream: z.boolean().nullish(),
  stop_sequences: Strings.nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  output_config: z.looseObject({ format: JsonObject.optional() }).nullish(),
});

const CountTokensBody = z.looseObject(anthropicPrompt);

/** OpenAI's limit of inputs in one embeddings request. */
const MAX_EMBEDDING_INPUTS = 2_048;
const EmbeddingsBody = z.looseObject({
  model: ModelName,
  input: z.union([z.string(), z.array(z.union([z.string(), z.number(), z.array(z.number())])).min(1)], {
    error: 'must be a string, or an array of strings or token arrays',
  }).refine((input) => !Array.isArray(input) || input.length <= MAX_EMBEDDING_INPUTS, `must hold at most ${MAX_EMBEDDING_INPUTS} inputs`),
});

const ResponsesBody = z.looseObject({
  model: ModelName,
  input: z.union(
    [
      z.string(),
      z.array(
        z.looseObject({
          role: z.string().optional(),
          content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))], { error: 'must be a string or an array of content parts' }).optional(),
        }),
      ),
    ],
    { error: 'must be a string or an array of input items' },
  ),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: outputLimit.nullish(),
  tools: z.array(JsonObject).nullish(),
});

/** The routes by `METHOD /path` (below /v1). */
export function dataPlaneRoutes(deps: RelayDeps & { catalog: PriceCatalog }): Map<string, DataPlaneRoute> {
  /** A route whose body names a model; its handler relays the body in the route's format. */
  const relayed = <S extends z.ZodType<{ model: string }>>(
    format: WireFormatId,
    endpoint: string,
    schema: S,
    handle: (exchange: RouteExchange<z.output<S>>, relay: (call: RouteCall) => Promise<void>) => Promise<void>,
  ): DataPlaneRoute =>
    ({
      format,
      endpoint,
      body: schema,
      handle: (exchange: RouteExchange<z.output<S>>) =>
        handle(exchange, (call) =>
          relay(
            exchange.principal,
            exchange.response,
            {
              caller: format,
              operation: call.operation,
              endpoint,
              body: exchange.body,
              bodyBytes: exchange.bodyBytes,
              model: exchange.body.model,
              stream: call.stream,
              promptTokens: call.promptTokens,
              // No prompt has more tokens than bytes; an image is a few bytes of URL but many tokens.
              promptTokenBound: exchange.bodyBytes.length + (call.images ?? 0) * IMAGE_TOKENS,
              maxOutputTokens: call.maxOutputTokens,
              choices: call.choices ?? 1,
              callerHeaders: exchange.request.headers,
            },
            deps,
          ),
        ),
    }) as DataPlaneRoute;

  return new Map<string, DataPlaneRoute>([
    [
      'POST /chat/completions',
      relayed('openai', 'chat.completions', ChatCompletionBody, ({ body }, relay) =>
        relay({
          operation: 'chat',
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(body.messages, undefined, body.tools ?? undefined)),
          images: imagesIn(body.messages),
          maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
          choices: body.n ?? 1,
        }),
      ),
    ],
    [
      'POST /messages',
      relayed('anthropic', 'messages', MessagesBody, ({ body }, relay) =>
        relay({
          operation: 'chat',
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(body.messages, body.system ?? undefined, body.tools ?? undefined)),
          images: imagesIn(body.messages),
          maxOutputTokens: body.max_tokens,
        }),
      ),
    ],
    [
      'POST /messages/count_tokens',
      relayed('anthropic', 'messages.count_tokens', CountTokensBody, async ({ principal, body, response }, relay) => {
        const promptTokens = countedOnce(() => estimatePromptTokens(body.messages, body.system ?? undefined, body.tools ?? undefined));
        const override = modelOverrideFor(principal, body.model);
        const upstream = deps.upstreams.resolve(principal, override?.with ?? body.model, new Date(), override?.connectionId);
        if (!countsTokensFor('anthropic', upstream.adapter)) {
          // The provider counts only in its own format; otherwise the tiktoken estimate answers, on the key's rate limits.
          const rateLimitHeaders = await deps.metering.admitRate(principal, promptTokens);
          const inputTokens = await promptTokens();
          deps.observer?.requestAnsweredLocally('messages.count_tokens', principal.plan.slug);
          return sendJson(response, 200, { input_tokens: inputTokens }, rateLimitHeaders);
        }
        return relay({ operation: 'count_tokens', stream: false, promptTokens, maxOutputTokens: 0 });
      }),
    ],
    [
      'POST /embeddings',
      relayed('openai', 'embeddings', EmbeddingsBody, ({ body }, relay) =>
        relay({
          operation: 'embeddings',
          stream: false,
          promptTokens: countedOnce(() => estimateInputTokens(body.input)),
          maxOutputTokens: 0,
        }),
      ),
    ],
    [
      'POST /responses',
      relayed('openai', 'responses', ResponsesBody, ({ body }, relay) => {
        const input = typeof body.input === 'string' ? [{ content: body.input }] : body.input;
        return relay({
          operation: 'responses',
          stream: body.stream === true,
          promptTokens: countedOnce(() => estimatePromptTokens(input, body.instructions ?? undefined, body.tools ?? undefined)),
          images: imagesIn(input),
          maxOutputTokens: body.max_output_tokens ?? undefined,
        });
      }),
    ],
    [
      // The models this key may use, in the caller's format (Anthropic's SDK sends `anthropic-version`).
      'GET /models',
      {
        format: 'openai',
        endpoint: 'models',
        handle: async ({ principal, request, response }) => {
          deps.observer?.requestAnsweredLocally('models', principal.plan.slug);
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
