/**
 * Anthropic Messages wire types, taken type-only from the official SDK: the request,
 * the message, the stream events and the error body.
 *
 * `temperature`, `top_p` and `top_k` are in the public Messages reference but not in
 * @anthropic-ai/sdk 1.12's request type, so the request type adds them back.
 */
import type {
  Message,
  MessageCreateParamsBase,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';

export type {
  ContentBlock as AnthropicContentBlock,
  ContentBlockParam as AnthropicContentBlockParam,
  ImageBlockParam as AnthropicImageBlockParam,
  MessageDeltaUsage as AnthropicDeltaUsage,
  MessageParam as AnthropicMessageParam,
  RawMessageStreamEvent as AnthropicRawStreamEvent,
  StopReason as AnthropicStopReason,
  TextBlockParam as AnthropicTextBlockParam,
  ToolChoice as AnthropicToolChoice,
  ToolResultBlockParam as AnthropicToolResultBlockParam,
  ToolUnion as AnthropicToolUnion,
  Usage as AnthropicUsage,
} from '@anthropic-ai/sdk/resources/messages';

export type AnthropicMessagesRequest = MessageCreateParamsBase & {
  temperature?: number;
  top_p?: number;
  top_k?: number;
};
export type AnthropicMessage = Message;

/** The usage counts Anthropic reports, in a message or (cumulatively) in a message_delta. */
export interface AnthropicUsageReport {
  input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number } | null;
}

/** Anthropic's error body, also the data of a stream's `error` event. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/** Every event an Anthropic stream carries: the message events, keep-alives and errors. */
export type AnthropicStreamEvent = RawMessageStreamEvent | { type: 'ping' } | AnthropicErrorBody;
