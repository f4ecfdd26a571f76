/**
 * The format translators, OpenAI chat completions as the hub: OpenAI callers served
 * by Anthropic or Gemini models, Anthropic callers served by OpenAI or (through the
 * hub) Gemini models.
 */
import { anthropicToOpenAI } from './anthropic-to-openai.ts';
import { composeTranslators } from './compose.ts';
import { openAIToGemini } from './openai-to-gemini.ts';

export { anthropicToOpenAI } from './anthropic-to-openai.ts';
export { composeTranslators } from './compose.ts';
export { openAIToAnthropic } from './openai-to-anthropic.ts';
export { openAIToGemini } from './openai-to-gemini.ts';
export type { FormatTranslator, StreamEvent, StreamTranslator } from './types.ts';

/** An Anthropic caller served by a Gemini model: Anthropic → OpenAI → Gemini and back. */
export const anthropicToGemini = composeTranslators(anthropicToOpenAI, openAIToGemini);
