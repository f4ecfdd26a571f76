/**
 * OpenAI Chat Completions wire types, taken type-only from the official SDK so they
 * follow OpenAI's reference: the request, the complete answer, one stream chunk and
 * the error body.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
} from 'openai/resources/chat/completions';

export type {
  ChatCompletionContentPart as OpenAIContentPart,
  ChatCompletionContentPartRefusal as OpenAIRefusalPart,
  ChatCompletionContentPartText as OpenAITextPart,
  ChatCompletionMessageFunctionToolCall as OpenAIFunctionToolCall,
  ChatCompletionMessageParam as OpenAIMessageParam,
  ChatCompletionMessageToolCall as OpenAIToolCall,
  ChatCompletionTool as OpenAITool,
  ChatCompletionToolChoiceOption as OpenAIToolChoice,
} from 'openai/resources/chat/completions';
export type { CompletionUsage as OpenAIUsage } from 'openai/resources/completions';

/** A chat completion request as sent on the wire, streaming or not. */
export type OpenAIChatRequest = ChatCompletionCreateParamsBase;
export type OpenAIChatCompletion = ChatCompletion;
export type OpenAIChatChunk = ChatCompletionChunk;
export type OpenAIFinishReason = ChatCompletion.Choice['finish_reason'];
export type OpenAIChunkDelta = ChatCompletionChunk.Choice['delta'];

/** OpenAI's error body, as its SDKs read it (also sent as a stream event's data). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
