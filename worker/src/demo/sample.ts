/**
 * A demo team's layout and its sample usage, a day at a time. Three groups (a support bot
 * on small models, search on mid-size ones, internal tools on the largest), two optimised
 * keys each, and 90 days of requests shaped by a real workload (workload.ts), each priced
 * by core's priceRequest at the catalog's prices as the gateway prices one, on the Growth
 * plan, and never charged (a demo team: core's chargedBill). Each day is drawn from a seed
 * of its own and the trace position the days before it reach, so any day can be made again
 * alone: a fill resumed after a restart makes the same events with the same request ids,
 * which the meter records once.
 */
import { chargedBill, type PriceCatalog, planTerms, priceRequest, type Usage } from '@spendgate/core';
import type { DemoFillGroup, UsageEventJob } from '@spendgate/store';
import { azureTrace, demoDay, pick, requestsOnDay, seededRandom } from './workload.ts';

export const DEMO_DAYS = 90;
const DAY_MS = 86_400_000;
const SEED = 0x5eed;

export interface DemoGroup {
  name: string;
  description: string;
  share: number;
  models: { weight: number; value: { provider: string; model: string } }[];
}

/** Who uses what in a demo team, in the order a fill's `groups` lists their ids. */
export const DEMO_GROUPS: readonly DemoGroup[] = [
  {
    name: 'Customer support',
    description: 'The support assistant answering customers (sample data)',
    share: 5,
    models: [
      { weight: 6, value: { provider: 'openai', model: 'gpt-4o-mini' } },
      { weight: 3, value: { provider: 'anthropic', model: 'claude-haiku-4-5' } },
      { weight: 1, value: { provider: 'google', model: 'gemini-2.5-flash' } },
    ],
  },
  {
    name: 'Search & RAG',
    description: 'Answers over the product documentation (sample data)',
    share: 3,
    models: [
      { weight: 5, value: { provider: 'openai', model: 'gpt-4.1-mini' } },
      { weight: 3, value: { provider: 'google', model: 'gemini-2.5-flash' } },
      { weight: 2, value: { provider: 'openai', model: 'gpt-4o' } },
    ],
  },
  {
    name: 'Internal tools',
    description: 'Engineering and analytics assistants (sample data)',
    share: 2,
    models: [
      { weight: 5, value: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
      { weight: 3, value: { provider: 'openai', model: 'gpt-4o' } },
      { weight: 2, value: { provider: 'google', model: 'gemini-2.5-pro' } },
    ],
  },
];

/** Each group's keys, in the order a fill's `keyIds` lists them. */
export const DEMO_KEYS: readonly { name: string; weight: number }[] = [
  { name: 'production', weight: 85 },
  { name: 'staging', weight: 15 },
];

/** The usage of one trace request, with prompt caching on long prompts of models that offer it. */
function usageOf(promptTokens: number, outputTokens: number, provider: string, random: () => number): Usage {
  const cached = provider !== 'google' && promptTokens > 1_024 && random() < 0.4 ? Math.floor(promptTokens * 0.6) : 0;
  return { inputTokens: promptTokens - cached, cachedReadTokens: cached, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens, reasoningTokens: 0 };
}

export interface SampleDayInput {
  teamId: string;
  groups: readonly DemoFillGroup[];
  /** The sample's last moment: its days are the `days` UTC days up to it, the last cut there. */
  sampleEnd: Date;
  days: number;
  /** 0 = the first (oldest) day. */
  day: number;
  catalog: PriceCatalog;
}

/** Day `day`'s sample requests as the meter records them, in time order. */
export function sampleDay(input: SampleDayInput): UsageEventJob[] {
  const { teamId, days, day } = input;
  const trace = azureTrace();
  const lastDayStart = Math.floor(input.sampleEnd.getTime() / DAY_MS) * DAY_MS;
  const dayStart = (index: number) => new Date(lastDayStart - (days - 1 - index) * DAY_MS);
  let cursor = 0;
  for (let index = 0; index < day; index += 1) cursor = (cursor + requestsOnDay(index, days, dayStart(index))) % trace.length;
  const random = seededRandom(SEED ^ Math.imul(day + 1, 0x9e3779b1));
  const groups = input.groups.map((group, index) => ({
    weight: DEMO_GROUPS[index]!.share,
    value: { groupId: group.groupId, models: DEMO_GROUPS[index]!.models, keys: group.keyIds.map((keyId, key) => ({ weight: DEMO_KEYS[key]!.weight, value: keyId })) },
  }));
  const plan = planTerms('growth');
  const requests = demoDay(trace, cursor, dayStart(day), requestsOnDay(day, days, dayStart(day)), random).requests.filter(
    (request) => request.occurredAt <= input.sampleEnd,
  );
  return requests.map((request, index) => {
    const group = pick(random, groups);
    const { provider, model } = pick(random, group.models);
    const failed = random() < 0.012;
    const usage = failed ? usageOf(0, 0, provider, random) : usageOf(request.promptTokens, request.outputTokens, provider, random);
    const priced = priceRequest(input.catalog, { kind: 'optimised', plan, provider, model, usage, at: request.occurredAt });
    const { cost, budgetSpendMicros } = priced;
    const bill = chargedBill({ isDemo: true }, priced.bill);
    return {
      requestId: `demo-${teamId}-${day}-${index}`,
      occurredAt: request.occurredAt.toISOString(),
      teamId,
      groupId: group.groupId,
      keyId: pick(random, group.keys),
      connectionId: null,
      provider,
      model,
      endpoint: 'chat.completions',
      statusCode: failed ? 429 : 200,
      streamed: random() < 0.5,
      estimated: !failed && random() < 0.004,
      usage,
      costMicros: cost.status === 'priced' ? cost.totalMicros.toString() : null,
      currency: 'USD',
      priceVersion: cost.status === 'priced' ? cost.priceVersion : null,
      latencyMs: failed ? 40 + Math.floor(random() * 60) : Math.round(250 + usage.outputTokens * 9 + request.promptTokens * 0.05 + random() * 400),
      keyKind: 'optimised',
      billedMicros: bill.billedMicros === null ? null : bill.billedMicros.toString(),
      billingRule: bill.rule,
      fxRatePpm: bill.fxRatePpm.toString(),
      budgetSpendMicros: budgetSpendMicros.toString(),
      route: 'requested',
    };
  });
}
