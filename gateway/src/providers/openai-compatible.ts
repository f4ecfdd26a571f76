/**
 * The OpenAI wire format and everything that speaks it: OpenAI itself and any
 * OpenAI-compatible endpoint (self-hosted vLLM/Ollama, and the hosted family that
 * later adapters derive from this base).
 */
import type { Usage } from '@spendgate/core';
import type { ChatRequestBody, ProviderAdapter } from './types.ts';

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Maps OpenAI's usage object: prompt_tokens includes cached tokens; completion includes reasoning. */
export function usageFromOpenAI(usage: OpenAIUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (usage.prompt_tokens ?? 0) - cached),
    cachedReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: usage.completion_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

function usageField(value: unknown): OpenAIUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = (value as { usage?: unknown }).usage;
  return typeof usage === 'object' && usage !== null ? (usage as OpenAIUsage) : undefined;
}

export function openAICompatible(spec: { id: string; defaultBaseUrl: string | undefined }): ProviderAdapter {
  return {
    ...spec,
    authHeaders: (secret) => ({ authorization: `Bearer ${secret}` }),
    prepareChatBody(body: ChatRequestBody): ChatRequestBody {
      if (!body.stream || body.stream_options?.include_usage) return body;
      return { ...body, stream_options: { ...body.stream_options, include_usage: true } };
    },
    usageFromJson(answer) {
      const usage = usageField(answer);
      return usage && usageFromOpenAI(usage);
    },
    usageFromStreamEvent(event) {
      const usage = usageField(event);
      return usage && usageFromOpenAI(usage);
    },
    isUsageOnlyEvent(event) {
      const choices = (event as { choices?: unknown[] } | null)?.choices;
      return Array.isArray(choices) && choices.length === 0 && usageField(event) !== undefined;
    },
  };
}
