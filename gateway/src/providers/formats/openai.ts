// OpenAI's wire format: chat completions (`data:` chunks ending in `data: [DONE]`),
// the Responses API (typed events ending in response.completed) and embeddings.
import type { Usage } from '@spendgate/core';
import type { StreamEvent } from '../translate/types.ts';
import type { Operation, StreamObserver, WireFormat } from './types.ts';
import { fields, usageFromOpenAIChat, usageFromOpenAIResponses } from './usage-mapping.ts';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

function chatObserver(): StreamObserver {
  let usage: Usage | undefined;
  let model: string | undefined;
  let text = '';
  let done = false;
  return {
    observe({ data }: StreamEvent) {
      if (data === '[DONE]') {
        done = true;
        return;
      }
      const chunk = fields(data);
      if (typeof chunk.model === 'string') model = chunk.model;
      if (chunk.usage) usage = usageFromOpenAIChat(chunk.usage);
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const content = fields(fields(choices[0]).delta).content;
      if (typeof content === 'string') text += content;
    },
    usage: () => usage,
    model: () => model,
    generatedText: () => text,
    completed: () => done,
  };
}

function responsesObserver(): StreamObserver {
  let usage: Usage | undefined;
  let model: string | undefined;
  let text = '';
  let done = false;
  return {
    observe({ event, data }: StreamEvent) {
      const payload = fields(data);
      const type = event ?? payload.type;
      if (type === 'response.output_text.delta' && typeof payload.delta === 'string') text += payload.delta;
      const response = fields(payload.response);
      if (typeof response.model === 'string') model = response.model;
      if (response.usage) usage = usageFromOpenAIResponses(response.usage);
      if (type === 'response.completed' || type === 'response.incomplete') done = true;
    },
    usage: () => usage,
    model: () => model,
    generatedText: () => text,
    completed: () => done,
  };
}

export const openAIFormat: WireFormat = {
  id: 'openai',
  usageFromAnswer(operation: Operation, answer: unknown) {
    const usage = fields(answer).usage;
    if (!usage) return undefined;
    if (operation === 'responses') return usageFromOpenAIResponses(usage);
    return usageFromOpenAIChat(usage);
  },
  modelFromAnswer(answer) {
    const model = fields(answer).model;
    return typeof model === 'string' ? model : undefined;
  },
  observeStream: (operation) => (operation === 'responses' ? responsesObserver() : chatObserver()),
  frame: ({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`,
  streamTerminator: 'data: [DONE]\n\n',
  errorBody: (status, message, code, param = null) => ({
    error: { message, type: ERROR_TYPES[status] ?? 'api_error', param, code },
  }),
};

/** True for the chat chunk that only carries usage (`choices: []`), added when we asked for it. */
export function isUsageOnlyChunk(data: unknown): boolean {
  const chunk = fields(data);
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && Boolean(chunk.usage);
}
