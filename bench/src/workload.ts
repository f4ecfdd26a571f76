/**
 * What every scenario sends and what the mock upstream answers, computed once: a small
 * OpenAI chat completion request (JSON or streamed with `include_usage`) and the exact
 * bytes of the answer. Every scenario must hand the client those bytes unchanged — the
 * gateway passes a provider's answer through — so the load generator checks each
 * response body against them (a mismatch counts as a failed request).
 */

export type Format = 'json' | 'stream';
export const FORMATS: readonly Format[] = ['json', 'stream'];

/** The model asked for, and the dated model the mock answers with (priced as gpt-4o). */
export const REQUESTED_MODEL = 'gpt-4o';
const ANSWERED_MODEL = 'gpt-4o-2024-08-06';

/** The upstream key of the bench's connection; the mock upstream accepts any key. */
export const UPSTREAM_API_KEY = 'sk-bench-upstream';

const MESSAGES = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'Name three prime numbers and say why they are prime.' },
];

/** A sixteen-word reply: one content chunk per word when streamed. */
const REPLY_WORDS = 'Two, three and five are prime: each has exactly two divisors, one and the number itself.'
  .split(/(?=\s)/);
const USAGE = {
  prompt_tokens: 31,
  completion_tokens: REPLY_WORDS.length,
  total_tokens: 31 + REPLY_WORDS.length,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
const ID = 'chatcmpl-bench0000000000000000000000';
const CREATED = 1_767_225_600;
const FINGERPRINT = 'fp_bench00001';

/** The request body the load generator sends for a format. */
export function requestBody(format: Format): string {
  return JSON.stringify(
    format === 'stream'
      ? { model: REQUESTED_MODEL, messages: MESSAGES, stream: true, stream_options: { include_usage: true } }
      : { model: REQUESTED_MODEL, messages: MESSAGES },
  );
}

/** How the mock upstream tells a streamed request from a JSON one without parsing it. */
export const STREAM_MARKER = Buffer.from('"stream":true');

function jsonAnswer(): string {
  return JSON.stringify({
    id: ID,
    object: 'chat.completion',
    created: CREATED,
    model: ANSWERED_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: REPLY_WORDS.join(''), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  });
}

/** OpenAI's stream shape: a role chunk, a chunk per word, a finish chunk, the usage chunk, [DONE]. */
function streamAnswer(): string {
  const chunk = (choices: unknown[], usage: unknown = null) =>
    JSON.stringify({
      id: ID,
      object: 'chat.completion.chunk',
      created: CREATED,
      model: ANSWERED_MODEL,
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
      choices,
      usage,
    });
  const choice = (delta: unknown, finishReason: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finishReason });
  const events = [
    chunk([choice({ role: 'assistant', content: '', refusal: null })]),
    ...REPLY_WORDS.map((word) => chunk([choice({ content: word })])),
    chunk([choice({}, 'stop')]),
    chunk([], USAGE),
  ];
  return `${events.map((data) => `data: ${data}\n\n`).join('')}data: [DONE]\n\n`;
}

/** The exact answer body for each format (what the client must receive). */
export const ANSWER_BODIES: Record<Format, string> = { json: jsonAnswer(), stream: streamAnswer() };

/** Content types the mock answers with, as OpenAI does. */
export const ANSWER_CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json',
  stream: 'text/event-stream; charset=utf-8',
};
