// Every provider Spendgate can call, by registry id.
import { anthropic } from './anthropic.ts';
import { gemini } from './gemini.ts';
import { azureOpenAI, openAICompatible } from './openai-compatible.ts';
import type { ProviderAdapter } from './types.ts';

const adapters: ProviderAdapter[] = [
  openAICompatible({
    id: 'openai',
    name: 'OpenAI',
    defaultBaseUrl: 'https://api.openai.com/v1',
    offers: ['embeddings', 'responses'],
    chatOutputLimit: 'max_completion_tokens',
  }),
  azureOpenAI,
  anthropic,
  gemini,
  openAICompatible({ id: 'mistral', name: 'Mistral AI', defaultBaseUrl: 'https://api.mistral.ai/v1', offers: ['embeddings'] }),
  openAICompatible({ id: 'groq', name: 'Groq', defaultBaseUrl: 'https://api.groq.com/openai/v1' }),
  openAICompatible({ id: 'together', name: 'Together AI', defaultBaseUrl: 'https://api.together.xyz/v1', offers: ['embeddings'] }),
  openAICompatible({ id: 'deepseek', name: 'DeepSeek', defaultBaseUrl: 'https://api.deepseek.com/v1' }),
  openAICompatible({ id: 'xai', name: 'xAI', defaultBaseUrl: 'https://api.x.ai/v1' }),
  openAICompatible({ id: 'fireworks', name: 'Fireworks AI', defaultBaseUrl: 'https://api.fireworks.ai/inference/v1', offers: ['embeddings'] }),
  openAICompatible({ id: 'openrouter', name: 'OpenRouter', defaultBaseUrl: 'https://openrouter.ai/api/v1' }),
  openAICompatible({ id: 'perplexity', name: 'Perplexity', defaultBaseUrl: 'https://api.perplexity.ai' }),
  openAICompatible({ id: 'cerebras', name: 'Cerebras', defaultBaseUrl: 'https://api.cerebras.ai/v1' }),
  openAICompatible({
    id: 'openai-compatible',
    name: 'OpenAI-compatible endpoint (self-hosted)',
    defaultBaseUrl: undefined,
    offers: ['embeddings'],
    selfHosted: true,
  }),
];

const byId = new Map(adapters.map((adapter) => [adapter.id, adapter]));

export const providers: readonly ProviderAdapter[] = adapters;

export function findProvider(id: string): ProviderAdapter | undefined {
  return byId.get(id);
}
