// Anthropic's wire format: the Messages API. Streams are named events
// (message_start … message_stop); usage arrives in message_start and grows in message_delta.
import { modelId } from '../../model-id.ts';
import { stringField } from './raw-event.ts';
import { isNonEmptyArray, someContentPart, streamObserver, type WireFormat } from './types.ts';
import { fields, usageFromAnthropic } from './usage-mapping.ts';

/**
 * Anthropic's error types by HTTP status, as its errors reference documents them, and
 * 503 (Service Unavailable, which it does not list) as its nearest type, an overload.
 * Another 4xx is an `invalid_request_error` and another 5xx an `api_error`.
 */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The error type of an HTTP status in Anthropic's names (also the types OpenAI-format callers are given for a translated provider's error). */
export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function messagesObserver() {
  // Usage fields as reported so far: message_start's, then message_delta's (cumulative) on top.
  let reported: Record<string, unknown> = {};
  return streamObserver(({ event, data }, state) => {
    const payload = fields(data);
    const type = event ?? payload.type;
    if (type === 'message_start') {
      const message = fields(payload.message);
      state.model = modelId(message.model) ?? state.model;
      reported = { ...fields(message.usage) };
      state.usage = usageFromAnthropic(reported);
    } else if (type === 'message_delta') {
      reported = { ...reported, ...fields(payload.usage) };
      state.usage = usageFromAnthropic(reported);
    } else if (type === 'content_block_delta') {
      const delta = fields(payload.delta);
      if (typeof delta.text === 'string') state.text.push(delta.text);
    } else if (type === 'message_stop') {
      state.completed = true;
    }
  }, {
    // Only message_start, message_delta and message_stop change more than text.
    textOnly: ({ event }) => event === 'content_block_delta' || event === 'content_block_start' || event === 'content_block_stop' || event === 'ping',
    text: ({ event, data }) => (event === 'content_block_delta' ? stringField(data, 'text') : ''),
  });
}

export const anthropicFormat: WireFormat = {
  id: 'anthropic',
  usageFromAnswer(operation, answer) {
    if (operation !== 'chat') return undefined;
    const usage = fields(answer).usage;
    return usage ? usageFromAnthropic(usage) : undefined;
  },
  modelFromAnswer(answer) {
    return modelId(fields(answer).model);
  },
  observeStream: () => messagesObserver(),
  frame: ({ event, data }) => `event: ${event ?? fields(data).type}\ndata: ${JSON.stringify(data)}\n\n`,
  streamTerminator: '',
  requestFeatures: (_operation, body) => ({
    tools: isNonEmptyArray(body.tools),
    images: someContentPart(body.messages, (part) => part.type === 'image'),
    jsonMode: fields(body.output_config).format !== undefined,
  }),
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: anthropicErrorType(status), message },
  }),
};
