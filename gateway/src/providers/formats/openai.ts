// OpenAI's wire format: chat completions (`data:` chunks ending in `data: [DONE]`),
// the Responses API (typed events ending in response.completed) and embeddings.
import { modelId } from '../../model-id.ts';
import { stringField } from './raw-event.ts';
import { isNonEmptyArray, type Operation, someContentPart, streamObserver, type WireFormat } from './types.ts';
import { fields, usageFromOpenAIChat, usageFromOpenAIResponses } from './usage-mapping.ts';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** A `"usage": {…}` object (chunks carry `"usage":null` until the usage chunk). */
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

const chatObserver = () =>
  streamObserver(({ data }, state) => {
    if (data === '[DONE]') {
      state.completed = true;
      return;
    }
    const chunk = fields(data);
    state.model = modelId(chunk.model) ?? state.model;
    if (chunk.usage) state.usage = usageFromOpenAIChat(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const content = fields(fields(choices[0]).delta).content;
    if (typeof content === 'string') state.text.push(content);
  }, {
    // A chunk without a usage object adds its delta's text (and names the model every chunk names).
    textOnly: ({ data }) => data !== '[DONE]' && !USAGE_OBJECT.test(data),
    text: ({ data }) => stringField(data, 'content'),
  });

const responsesObserver = () =>
  streamObserver(({ event, data }, state) => {
    const payload = fields(data);
    const type = event ?? payload.type;
    if (type === 'response.output_text.delta' && typeof payload.delta === 'string') state.text.push(payload.delta);
    const response = fields(payload.response);
    state.model = modelId(response.model) ?? state.model;
    if (response.usage) state.usage = usageFromOpenAIResponses(response.usage);
    if (type === 'response.completed' || type === 'response.incomplete') state.completed = true;
  }, {
    // Only events carrying the `response` object (created, completed…) change more than text.
    textOnly: ({ event, data }) => event !== undefined && !data.includes('"response"'),
    text: ({ event, data }) => (event === 'response.output_text.delta' ? stringField(data, 'delta') : ''),
  });

export const openAIFormat: WireFormat = {
  id: 'openai',
  usageFromAnswer(operation: Operation, answer: unknown) {
    const usage = fields(answer).usage;
    if (!usage) return undefined;
    if (operation === 'responses') return usageFromOpenAIResponses(usage);
    return usageFromOpenAIChat(usage);
  },
  modelFromAnswer(answer) {
    return modelId(fields(answer).model);
  },
  observeStream: (operation) => (operation === 'responses' ? responsesObserver() : chatObserver()),
  frame: ({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`,
  streamTerminator: 'data: [DONE]\n\n',
  eventsNotAskedFor: (operation, body) =>
    operation === 'chat' && fields(body.stream_options).include_usage !== true ? isUsageOnlyChunk : undefined,
  requestFeatures(operation, body) {
    const messages = operation === 'responses' ? body.input : body.messages;
    const format = operation === 'responses' ? fields(fields(body.text).format).type : fields(body.response_format).type;
    return {
      tools: isNonEmptyArray(body.tools) || isNonEmptyArray(body.functions),
      images: someContentPart(messages, (part) => part.type === 'image_url' || part.type === 'input_image'),
      jsonMode: format === 'json_object' || format === 'json_schema',
    };
  },
  errorBody: (status, message, code, param = null) => ({
    error: { message, type: ERROR_TYPES[status] ?? 'api_error', param, code },
  }),
};

/** True for the chat chunk that only carries usage (`choices: []`), added when we asked for it. */
export function isUsageOnlyChunk(data: unknown): boolean {
  const chunk = fields(data);
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && Boolean(chunk.usage);
}
