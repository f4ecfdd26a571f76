// Google Gemini's native API (generateContent / streamGenerateContent). Base URL
// without the version path, as Google's SDKs take it; the model is part of the URL.
import { withLimit } from './output-limit.ts';
import type { ProviderAdapter } from './types.ts';

export const gemini: ProviderAdapter = {
  id: 'google',
  name: 'Google Gemini',
  format: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  catalogProvider: 'google',
  countsTokens: true,
  selfHosted: false,
  authHeaders: (secret) => ({ 'x-goog-api-key': secret }),
  url(operation, { baseUrl, model, stream }) {
    const name = `${baseUrl}/v1beta/models/${encodeURIComponent(model.replace(/^models\//, ''))}`;
    if (operation === 'chat') return stream ? `${name}:streamGenerateContent?alt=sse` : `${name}:generateContent`;
    if (operation === 'count_tokens') return `${name}:countTokens`;
    return undefined;
  },
  prepareBody: (_operation, body) => body,
  limitOutput(operation, body, maxTokens) {
    if (operation !== 'chat') return body;
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    return { ...body, generationConfig: withLimit(config, 'maxOutputTokens', maxTokens) };
  },
};
