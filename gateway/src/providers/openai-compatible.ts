/**
 * OpenAI and everything that speaks its API: the hosted OpenAI-compatible family
 * (Mistral, Groq, Together, DeepSeek, xAI, Fireworks, OpenRouter, Perplexity,
 * Cerebras), any self-hosted endpoint (Ollama, vLLM — BYOM), and Azure OpenAI, which
 * differs only in where requests go and how they are authenticated.
 */
import type { Operation } from './formats/index.ts';
import { withLimit } from './output-limit.ts';
import type { ProviderAdapter, UpstreamTarget } from './types.ts';

export interface OpenAICompatibleSpec {
  id: string;
  name: string;
  defaultBaseUrl: string | undefined;
  catalogProvider?: string;
  /** Operations besides chat that the provider offers. */
  offers?: readonly Operation[];
  /** A team's own model server (BYOM) rather than a hosted service. */
  selfHosted?: boolean;
  /** False for providers that reject `stream_options` (their streams carry usage anyway). */
  acceptsStreamOptions?: boolean;
  /**
   * The chat output limit it reads when a body names none (default `max_tokens`, which
   * every OpenAI-compatible API takes; OpenAI's reasoning models take only
   * `max_completion_tokens`).
   */
  chatOutputLimit?: 'max_tokens' | 'max_completion_tokens';
}

/** Asks an OpenAI-format stream for its final usage chunk unless the caller already did. */
function withStreamUsage(body: Record<string, unknown>): Record<string, unknown> {
  const options = (body.stream_options ?? {}) as Record<string, unknown>;
  if (!body.stream || options.include_usage === true) return body;
  return { ...body, stream_options: { ...options, include_usage: true } };
}

/**
 * An OpenAI-format body's output limit: the Chat Completions field the body already uses
 * (`max_completion_tokens` first), else `chatField`; Responses' `max_output_tokens`.
 */
function limitOpenAIOutput(chatField: string, operation: Operation, body: Record<string, unknown>, maxTokens: number) {
  if (operation === 'responses') return withLimit(body, 'max_output_tokens', maxTokens);
  if (operation !== 'chat') return body;
  const field = body.max_completion_tokens != null ? 'max_completion_tokens' : body.max_tokens != null ? 'max_tokens' : chatField;
  return withLimit(body, field, maxTokens);
}

export function openAICompatible(spec: OpenAICompatibleSpec): ProviderAdapter {
  const offers = new Set<Operation>(['chat', ...(spec.offers ?? [])]);
  const paths: Partial<Record<Operation, string>> = {
    chat: '/chat/completions',
    embeddings: '/embeddings',
    responses: '/responses',
  };
  return {
    id: spec.id,
    name: spec.name,
    format: 'openai',
    defaultBaseUrl: spec.defaultBaseUrl,
    catalogProvider: spec.catalogProvider ?? spec.id,
    countsTokens: false,
    selfHosted: spec.selfHosted ?? false,
    authHeaders: (secret) => ({ authorization: `Bearer ${secret}` }),
    url: (operation, { baseUrl }) => (offers.has(operation) ? `${baseUrl}${paths[operation]}` : undefined),
    prepareBody: (operation, body) =>
      operation === 'chat' && spec.acceptsStreamOptions !== false ? withStreamUsage(body) : body,
    limitOutput: (operation, body, maxTokens) => limitOpenAIOutput(spec.chatOutputLimit ?? 'max_tokens', operation, body, maxTokens),
  };
}

/** The api-version used when an Azure connection names none (a GA version). */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

export const azureOpenAI: ProviderAdapter = {
  id: 'azure-openai',
  name: 'Azure OpenAI',
  format: 'openai',
  defaultBaseUrl: undefined,
  catalogProvider: 'azure-openai',
  countsTokens: false,
  selfHosted: false,
  connectionOptions: [
    {
      name: 'apiVersion',
      label: 'API version',
      help: `The api-version every request is sent with (${AZURE_DEFAULT_API_VERSION} when empty). Requests name the Azure deployment as their model.`,
      placeholder: AZURE_DEFAULT_API_VERSION,
    },
  ],
  authHeaders: (secret) => ({ 'api-key': secret }),
  url(operation, target: UpstreamTarget) {
    const path = operation === 'chat' ? 'chat/completions' : operation === 'embeddings' ? 'embeddings' : undefined;
    if (!path) return undefined;
    const version = encodeURIComponent(target.options.apiVersion ?? AZURE_DEFAULT_API_VERSION);
    // The deployment is named by the request's model.
    return `${target.baseUrl}/openai/deployments/${encodeURIComponent(target.model)}/${path}?api-version=${version}`;
  },
  prepareBody: (operation, body) => (operation === 'chat' ? withStreamUsage(body) : body),
  limitOutput: (operation, body, maxTokens) => limitOpenAIOutput('max_completion_tokens', operation, body, maxTokens),
};
