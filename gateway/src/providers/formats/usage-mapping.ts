/**
 * Each provider's usage object mapped into Spendgate's one Usage shape.
 * - OpenAI chat: prompt_tokens INCLUDES cached tokens; completion_tokens includes reasoning.
 * - OpenAI responses: input_tokens includes cached; output_tokens includes reasoning.
 * - Anthropic: input_tokens EXCLUDES cache reads and writes, which come apart.
 * - Gemini: promptTokenCount includes cached content; thinking tokens come apart
 *   (thoughtsTokenCount) and are billed as output.
 */
import type { Usage } from '@spendgate/core';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

type Fields = Record<string, unknown>;
const fields = (value: unknown): Fields => (typeof value === 'object' && value !== null ? (value as Fields) : {});

export function usageFromOpenAIChat(raw: unknown): Usage {
  const usage = fields(raw);
  const cached = count(fields(usage.prompt_tokens_details).cached_tokens);
  return {
    inputTokens: Math.max(0, count(usage.prompt_tokens) - cached),
    cachedReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: count(usage.completion_tokens),
    reasoningTokens: count(fields(usage.completion_tokens_details).reasoning_tokens),
  };
}

export function usageFromOpenAIResponses(raw: unknown): Usage {
  const usage = fields(raw);
  const cached = count(fields(usage.input_tokens_details).cached_tokens);
  return {
    inputTokens: Math.max(0, count(usage.input_tokens) - cached),
    cachedReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: count(usage.output_tokens),
    reasoningTokens: count(fields(usage.output_tokens_details).reasoning_tokens),
  };
}

export function usageFromAnthropic(raw: unknown): Usage {
  const usage = fields(raw);
  const creation = fields(usage.cache_creation);
  const split = count(creation.ephemeral_5m_input_tokens) + count(creation.ephemeral_1h_input_tokens);
  const totalWrite = count(usage.cache_creation_input_tokens);
  return {
    inputTokens: count(usage.input_tokens),
    cachedReadTokens: count(usage.cache_read_input_tokens),
    // Without the 5m/1h split every write is a default (5-minute) write.
    cacheWrite5mTokens: split > 0 ? count(creation.ephemeral_5m_input_tokens) : totalWrite,
    cacheWrite1hTokens: split > 0 ? count(creation.ephemeral_1h_input_tokens) : 0,
    outputTokens: count(usage.output_tokens),
    reasoningTokens: 0,
  };
}

export function usageFromGemini(raw: unknown): Usage {
  const usage = fields(raw);
  const cached = count(usage.cachedContentTokenCount);
  const thoughts = count(usage.thoughtsTokenCount);
  return {
    inputTokens: Math.max(0, count(usage.promptTokenCount) - cached),
    cachedReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: count(usage.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
  };
}

export { fields };
