// The wire formats by id.
import { anthropicFormat } from './anthropic.ts';
import { geminiFormat } from './gemini.ts';
import { openAIFormat } from './openai.ts';
import type { WireFormat, WireFormatId } from './types.ts';

export const wireFormats: Record<WireFormatId, WireFormat> = {
  openai: openAIFormat,
  anthropic: anthropicFormat,
  gemini: geminiFormat,
};

export { parseStreamEvent, type RawStreamEvent } from './raw-event.ts';
export type { Operation, RequestFeatures, StreamObserver, WireFormat, WireFormatId } from './types.ts';
