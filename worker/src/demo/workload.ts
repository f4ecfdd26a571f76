/**
 * Demo usage a newcomer can look at: 90 days of requests shaped by a real workload, the
 * Azure LLM inference trace 2023 (conversation service, one hour, 19,366 requests; CC BY
 * 4.0, Patel et al., "Splitwise", ISCA 2024; azure-llm-inference-2023-conv.csv beside this
 * file). Each request's prompt and output tokens are a trace request's, taken in order;
 * its second within the hour is that request's, so the trace's bursts survive; the day's
 * volume follows weekdays (weekends quieter) and grows over the 90 days, and the hour
 * follows a working day. Everything is drawn from a seeded generator: the same seed and
 * day give the same requests.
 */
import { readFileSync } from 'node:fs';

export interface TraceRequest {
  /** Milliseconds after the trace's hour began. */
  offsetMs: number;
  promptTokens: number;
  outputTokens: number;
}

/** The trace's requests, in order (TIMESTAMP,ContextTokens,GeneratedTokens). */
export function parseTrace(csv: string): TraceRequest[] {
  const lines = csv.trim().split('\n').slice(1);
  const at = (line: string) => Date.parse(`${line.slice(0, 23).replace(' ', 'T')}Z`);
  const start = at(lines[0] ?? '');
  const hourStart = start - (start % 3_600_000);
  return lines.map((line) => {
    const [, prompt = '0', output = '0'] = line.split(',');
    return { offsetMs: (at(line) - hourStart) % 3_600_000, promptTokens: Number(prompt), outputTokens: Number(output) };
  });
}

let trace: TraceRequest[] | undefined;
/** The trace shipped beside this module (and beside the server bundle), read once. */
export function azureTrace(): TraceRequest[] {
  trace ??= parseTrace(readFileSync(new URL('./azure-llm-inference-2023-conv.csv', import.meta.url), 'utf8'));
  return trace;
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One choice among weighted options. */
export function pick<T>(random: () => number, options: readonly { weight: number; value: T }[]): T {
  const total = options.reduce((sum, option) => sum + option.weight, 0);
  let left = random() * total;
  for (const option of options) {
    left -= option.weight;
    if (left < 0) return option.value;
  }
  return options[options.length - 1]!.value;
}

/** Requests on a weekday at the start of the 90 days; the last day has 1.9 times as many. */
const WEEKDAY_REQUESTS = 500;
const GROWTH = 0.9;
/** Saturday and Sunday, against a weekday. */
const WEEKEND_FACTOR = [0.25, 1, 1, 1, 1, 1, 0.35];
/** How a day's requests spread over its 24 UTC hours: a working day, a quiet night. */
const HOUR_WEIGHTS = [1, 1, 1, 1, 1, 2, 3, 5, 8, 10, 10, 10, 9, 10, 10, 10, 9, 7, 5, 4, 3, 2, 2, 1];

/** How many requests day `index` (0 = first of `days`) of a demo has, on `date` (UTC). */
export function requestsOnDay(index: number, days: number, date: Date): number {
  const growth = 1 + (GROWTH * index) / Math.max(1, days - 1);
  return Math.round(WEEKDAY_REQUESTS * growth * (WEEKEND_FACTOR[date.getUTCDay()] ?? 1));
}

export interface DemoRequest {
  occurredAt: Date;
  promptTokens: number;
  outputTokens: number;
}

/**
 * The requests of one demo day (its UTC midnight), in time order: trace requests from
 * `cursor` on (wrapping), each placed in an hour drawn by HOUR_WEIGHTS at its own
 * second within the hour. Returns them and the cursor for the next day.
 */
export function demoDay(requests: readonly TraceRequest[], cursor: number, dayStart: Date, count: number, random: () => number) {
  const day: DemoRequest[] = [];
  const hours = HOUR_WEIGHTS.map((weight, hour) => ({ weight, value: hour }));
  for (let index = 0; index < count; index += 1) {
    const source = requests[(cursor + index) % requests.length]!;
    const hour = pick(random, hours);
    day.push({ occurredAt: new Date(dayStart.getTime() + hour * 3_600_000 + source.offsetMs), promptTokens: source.promptTokens, outputTokens: source.outputTokens });
  }
  day.sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
  return { requests: day, cursor: (cursor + count) % requests.length };
}
