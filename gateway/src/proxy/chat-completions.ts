/**
 * POST /v1/chat/completions — OpenAI format. Admits the request on the spend ledger,
 * forwards it to the key's connection, passes the answer (or the stream, event by
 * event) back unchanged, and records exactly one usage event whatever happens:
 * provider usage when reported, a tiktoken estimate (marked estimated) when the
 * stream is cut short by the client or the provider.
 */
import { randomUUID } from 'node:crypto';
import { emptyUsage, microsToDecimalString, type Usage } from '@spendgate/core';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { ChatRequestBody, ProviderAdapter } from '../providers/types.ts';
import type { Metering, MeteredRequest } from '../services/metering.ts';
import type { Principal } from '../services/principals.ts';
import { useZod } from '../zod-provider.ts';
import { openAIErrorBody } from './openai-errors.ts';
import { SseSplitter, sseData } from './sse.ts';
import { countTokens, estimateChatPromptTokens } from './token-estimate.ts';
import { sendUpstream, type UpstreamResponse } from './upstream.ts';

const ChatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()).min(1),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
});

export interface ChatRouteDeps {
  metering: Metering;
  upstreamTimeoutMs: number;
}

function requireConnection(principal: Principal) {
  if (!principal.connection) {
    throw new AppError(400, 'no_connection', 'This key is not bound to a provider connection');
  }
  return principal.connection;
}

function outcomeHeaders(requestId: string, model: string): Record<string, string> {
  return { 'x-spendgate-request-id': requestId, 'x-spendgate-model': model };
}

export const chatCompletionsRoutes =
  (deps: ChatRouteDeps): FastifyPluginAsync =>
  async (app) => {
    useZod(app).post('/chat/completions', { schema: { body: ChatBody } }, async (request, reply) => {
      const principal = request.principal!;
      const connection = requireConnection(principal);
      const body = request.body as ChatRequestBody;
      const metered: MeteredRequest = {
        requestId: randomUUID(),
        principal,
        provider: connection.adapter.id,
        endpoint: 'chat.completions',
        startedAt: new Date(),
      };
      const promptTokens = estimateChatPromptTokens(body.messages);
      const admission = await deps.metering.admit(metered, {
        model: body.model,
        promptTokens,
        maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      });
      if (!admission.ok) {
        throw new AppError(402, 'budget_exceeded', `Budget exceeded for ${admission.scope}`);
      }

      const upstreamBody = connection.adapter.prepareChatBody(body);
      const abort = new AbortController();
      let upstream: UpstreamResponse;
      try {
        upstream = await sendUpstream(`${connection.baseUrl}/chat/completions`, {
          headers: {
            'content-type': 'application/json',
            accept: body.stream ? 'text/event-stream' : 'application/json',
            ...connection.adapter.authHeaders(connection.secret),
          },
          body: JSON.stringify(upstreamBody),
          timeoutMs: deps.upstreamTimeoutMs,
          signal: abort.signal,
        });
      } catch (error) {
        await deps.metering.record(metered, {
          model: body.model,
          usage: emptyUsage(),
          estimated: false,
          statusCode: error instanceof AppError ? error.statusCode : 502,
          streamed: Boolean(body.stream),
        });
        throw error;
      }

      if (body.stream && upstream.statusCode === 200) {
        return relayStream(reply, upstream, abort, {
          adapter: connection.adapter,
          metered,
          metering: deps.metering,
          requestedModel: body.model,
          promptTokens,
          stripUsageEvent: upstreamBody !== body,
        });
      }
      return relayJson(reply, upstream, { adapter: connection.adapter, metered, metering: deps.metering, body });
    });
  };

async function relayJson(
  reply: FastifyReply,
  upstream: UpstreamResponse,
  ctx: { adapter: ProviderAdapter; metered: MeteredRequest; metering: Metering; body: ChatRequestBody },
) {
  const text = await upstream.body.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  const model = (answer as { model?: unknown } | undefined)?.model;
  const answeredModel = typeof model === 'string' ? model : ctx.body.model;
  const usage = ctx.adapter.usageFromJson(answer);
  const cost = await ctx.metering.record(ctx.metered, {
    model: answeredModel,
    usage: usage ?? emptyUsage(),
    estimated: false,
    statusCode: upstream.statusCode,
    streamed: false,
  });
  const headers = outcomeHeaders(ctx.metered.requestId, answeredModel);
  if (cost.status === 'priced') headers['x-spendgate-cost'] = microsToDecimalString(cost.totalMicros);
  const contentType = upstream.headers['content-type'];
  if (answer === undefined && upstream.statusCode < 400) {
    return reply
      .code(502)
      .headers(headers)
      .send(openAIErrorBody(502, 'The provider answered with something that is not JSON', 'upstream_invalid_response'));
  }
  return reply
    .code(upstream.statusCode)
    .headers(headers)
    .header('content-type', typeof contentType === 'string' ? contentType : 'application/json')
    .send(text);
}

async function relayStream(
  reply: FastifyReply,
  upstream: UpstreamResponse,
  abort: AbortController,
  ctx: {
    adapter: ProviderAdapter;
    metered: MeteredRequest;
    metering: Metering;
    requestedModel: string;
    promptTokens: number;
    stripUsageEvent: boolean;
  },
) {
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...outcomeHeaders(ctx.metered.requestId, ctx.requestedModel),
  });
  let clientGone = false;
  out.on('close', () => {
    if (!out.writableFinished) {
      clientGone = true;
      abort.abort();
    }
  });

  const splitter = new SseSplitter();
  let usage: Usage | undefined;
  let model = ctx.requestedModel;
  let generatedText = '';
  let completed = false;

  const handleEvent = (event: string) => {
    const data = sseData(event);
    let forward = true;
    if (data !== undefined && data !== '[DONE]') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = undefined;
      }
      const chunk = parsed as { model?: unknown; choices?: { delta?: { content?: unknown } }[] } | undefined;
      if (typeof chunk?.model === 'string') model = chunk.model;
      const delta = chunk?.choices?.[0]?.delta?.content;
      if (typeof delta === 'string') generatedText += delta;
      usage = ctx.adapter.usageFromStreamEvent(parsed) ?? usage;
      if (ctx.stripUsageEvent && ctx.adapter.isUsageOnlyEvent(parsed)) forward = false;
    }
    if (data === '[DONE]') completed = true;
    if (forward && !clientGone) out.write(event);
  };

  try {
    for await (const chunk of upstream.body) {
      for (const event of splitter.push(chunk as Uint8Array)) handleEvent(event);
    }
    const rest = splitter.rest();
    if (rest.trim()) handleEvent(rest);
  } catch {
    // The client left (we aborted) or the provider cut the stream: bill what was generated.
  }
  // A stream the provider cut short is cut for the client too (a clean end would pass
  // for a complete answer); a finished one ends normally.
  if (!clientGone) {
    if (completed || usage) out.end();
    else out.destroy();
  }

  const estimated = usage === undefined;
  await ctx.metering.record(ctx.metered, {
    model,
    usage: usage ?? { ...emptyUsage(), inputTokens: ctx.promptTokens, outputTokens: countTokens(generatedText) },
    estimated,
    statusCode: completed || usage ? 200 : clientGone ? 499 : 502,
    streamed: true,
  });
}
