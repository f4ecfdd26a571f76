// The one usage-event builder of the tests: a row as the meter records it, of one team's
// group and key, at `occurredAt`: a successful gpt-4o chat completion on an optimised key,
// 1,000 prompt and 100 output tokens, 200 ms, 0.0035 USD list cost, 0.003 GBP billed and
// counted on budgets, a new request id; `overrides` change any column.
import { randomUUID } from 'node:crypto';
import type { NewUsageEvent } from '../sql/schema.ts';

/** Whose usage it is: a team's group and key (none for the advisor's wording). */
export interface UsageEventOwner {
  teamId: string;
  groupId: string | null;
  keyId: string | null;
}

export function usageEvent(owner: UsageEventOwner, occurredAt: Date | string, overrides: Partial<NewUsageEvent> = {}): NewUsageEvent {
  return {
    request_id: randomUUID(),
    occurred_at: occurredAt,
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
