// A usage event as the meter records it, for API tests that read usage: `days` ago at
// 00:30 UTC (an hour ago for today), 1,000 prompt and 100 output tokens of gpt-4o on an
// optimised key, 0.0035 USD list cost and 0.003 GBP counted, unless overridden.
import { randomUUID } from 'node:crypto';
import type { NewUsageEvent } from '@spendgate/store';

const DAY_MS = 86_400_000;

export const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);

export function usageEvent(owner: { teamId: string; groupId: string; keyId: string }, days: number, overrides: Partial<NewUsageEvent> = {}): NewUsageEvent {
  return {
    request_id: randomUUID(),
    occurred_at: days === 0 ? new Date(Date.now() - 3_600_000) : new Date(Date.parse(`${daysAgo(days)}T00:30:00Z`)),
    team_id: owner.teamId,
    group_id: owner.groupId,
    key_id: owner.keyId,
    connection_id: null,
    provider: 'openai',
    model: 'gpt-4o',
    endpoint: 'chat.completions',
    status_code: 200,
    streamed: false,
    estimated: false,
    input_tokens: 1_000n,
    cached_read_tokens: 0n,
    cache_write_5m_tokens: 0n,
    cache_write_1h_tokens: 0n,
    output_tokens: 100n,
    reasoning_tokens: 0n,
    cost_micros: 3_500n,
    currency: 'USD',
    price_version: '2026-08-21',
    latency_ms: 200,
    key_kind: 'optimised',
    billed_micros: 3_000n,
    budget_spend_micros: 3_000n,
    ...overrides,
  };
}
