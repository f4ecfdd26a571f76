// Anthropic's Messages API. Base URL without the version path, as its SDK takes it.
import { withLimit } from './output-limit.ts';
import type { ProviderAdapter } from './types.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropic: ProviderAdapter = {
  id: 'anthropic',
  name: 'Anthropic',
  format: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com',
  catalogProvider: 'anthropic',
  countsTokens: true,
  selfHosted: false,
  authHeaders: (secret) => ({ 'x-api-key': secret, 'anthropic-version': ANTHROPIC_VERSION }),
  url(operation, { baseUrl }) {
    if (operation === 'chat') return `${baseUrl}/v1/messages`;
    if (operation === 'count_tokens') return `${baseUrl}/v1/messages/count_tokens`;
    return undefined;
  },
  prepareBody: (_operation, body) => body,
  limitOutput: (operation, body, maxTokens) => (operation === 'chat' ? withLimit(body, 'max_tokens', maxTokens) : body),
};
