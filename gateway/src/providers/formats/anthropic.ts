// Anthropic's wire format: the Messages API. Streams are named events
// (message_start … message_stop); usage arrives in message_start and grows in message_delta.
import type { Usage } from '@spendgate/core';
import type { StreamEvent } from '../translate/types.ts';
import type { StreamObserver, WireFormat } from './types.ts';
import { fields, usageFromAnthropic } from './usage-mapping.ts';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function messagesObserver(): StreamObserver {
  let reported: Record<string, unknown> | undefined;
  let model: string | undefined;
  let text = '';
  let done = false;
  return {
    observe({ event, data }: StreamEvent) {
      const payload = fields(data);
      const type = event ?? payload.type;
      if (type === 'message_start') {
        const message = fields(payload.message);
        if (typeof message.model === 'string') model = message.model;
        reported = { ...fields(message.usage) };
      } else if (type === 'message_delta') {
        // Later counts replace earlier ones (output_tokens is cumulative).
        reported = { ...reported, ...fields(payload.usage) };
      } else if (type === 'content_block_delta') {
        const delta = fields(payload.delta);
        if (typeof delta.text === 'string') text += delta.text;
      } else if (type === 'message_stop') {
        done = true;
      }
    },
    usage: (): Usage | undefined => (reported ? usageFromAnthropic(reported) : undefined),
    model: () => model,
    generatedText: () => text,
    completed: () => done,
  };
}

export const anthropicFormat: WireFormat = {
  id: 'anthropic',
  usageFromAnswer(operation, answer) {
    if (operation !== 'chat') return undefined;
    const usage = fields(answer).usage;
    return usage ? usageFromAnthropic(usage) : undefined;
  },
  modelFromAnswer(answer) {
    const model = fields(answer).model;
    return typeof model === 'string' ? model : undefined;
  },
  observeStream: () => messagesObserver(),
  frame: ({ event, data }) => `event: ${event ?? fields(data).type}\ndata: ${JSON.stringify(data)}\n\n`,
  streamTerminator: '',
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: ERROR_TYPES[status] ?? 'api_error', message },
  }),
};
