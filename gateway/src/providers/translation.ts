// Which translator serves a caller of one wire format from a provider of another, and
// whether a provider counts a caller's tokens.
// Translation covers chat (OpenAI chat completions ⇄ Anthropic messages ⇄ Gemini).
import type { Operation, WireFormatId } from './formats/index.ts';
import { anthropicToGemini, anthropicToOpenAI, openAIToAnthropic, openAIToGemini } from './translate/index.ts';
import type { FormatTranslator } from './translate/types.ts';
import type { ProviderAdapter } from './types.ts';

export type AnyTranslator = FormatTranslator<unknown, unknown, unknown, unknown>;

const CHAT_TRANSLATORS: Partial<Record<`${WireFormatId}->${WireFormatId}`, AnyTranslator>> = {
  'openai->anthropic': openAIToAnthropic as unknown as AnyTranslator,
  'openai->gemini': openAIToGemini as unknown as AnyTranslator,
  'anthropic->openai': anthropicToOpenAI as unknown as AnyTranslator,
  'anthropic->gemini': anthropicToGemini as unknown as AnyTranslator,
};

/** The translator from the caller's format to the provider's, or undefined if there is none. */
export function translatorFor(caller: WireFormatId, provider: WireFormatId, operation: Operation): AnyTranslator | undefined {
  return operation === 'chat' ? CHAT_TRANSLATORS[`${caller}->${provider}`] : undefined;
}

/** Whether a provider counts the tokens of a request from a caller of this format (no translator counts tokens). */
export function countsTokensFor(caller: WireFormatId, adapter: ProviderAdapter): boolean {
  return adapter.countsTokens && adapter.format === caller;
}
