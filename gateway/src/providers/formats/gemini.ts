// Google Gemini's native format: generateContent, and streamGenerateContent?alt=sse
// whose every event is a GenerateContentResponse carrying the usage so far.
import { modelId } from '../../model-id.ts';
import { isNonEmptyArray, someContentPart, streamObserver, type WireFormat } from './types.ts';
import { fields, usageFromGemini } from './usage-mapping.ts';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
};

function textOf(response: Record<string, unknown>): string {
  const candidates = Array.isArray(response.candidates) ? response.candidates : [];
  const parts = fields(fields(candidates[0]).content).parts;
  return Array.isArray(parts) ? parts.map((part) => fields(part).text).filter((t) => typeof t === 'string').join('') : '';
}

const generateObserver = () =>
  streamObserver(({ data }, state) => {
    const response = fields(data);
    if (response.usageMetadata) state.usage = usageFromGemini(response.usageMetadata);
    state.model = modelId(response.modelVersion) ?? state.model;
    state.text.push(textOf(response));
    const candidates = Array.isArray(response.candidates) ? response.candidates : [];
    if (candidates.some((candidate) => fields(candidate).finishReason)) state.completed = true;
  });

export const geminiFormat: WireFormat = {
  id: 'gemini',
  usageFromAnswer(operation, answer) {
    if (operation !== 'chat') return undefined;
    const usage = fields(answer).usageMetadata;
    return usage ? usageFromGemini(usage) : undefined;
  },
  modelFromAnswer(answer) {
    return modelId(fields(answer).modelVersion);
  },
  observeStream: () => generateObserver(),
  frame: ({ data }) => `data: ${JSON.stringify(data)}\n\n`,
  streamTerminator: '',
  requestFeatures: (_operation, body) => ({
    tools: isNonEmptyArray(body.tools),
    images: someContentPart(body.contents, (part) => part.inlineData !== undefined || part.fileData !== undefined),
    jsonMode: fields(body.generationConfig).responseMimeType === 'application/json',
  }),
  errorBody: (status, message) => ({ error: { code: status, message, status: STATUS_NAMES[status] ?? 'INTERNAL' } }),
};
