// Every provider Spendgate can call, by registry id.
import { openAICompatible } from './openai-compatible.ts';
import type { ProviderAdapter } from './types.ts';

const adapters: ProviderAdapter[] = [
  openAICompatible({ id: 'openai', defaultBaseUrl: 'https://api.openai.com/v1' }),
  openAICompatible({ id: 'openai-compatible', defaultBaseUrl: undefined }),
];

const byId = new Map(adapters.map((adapter) => [adapter.id, adapter]));

export const providerIds = adapters.map((adapter) => adapter.id);

export function findProvider(id: string): ProviderAdapter | undefined {
  return byId.get(id);
}
