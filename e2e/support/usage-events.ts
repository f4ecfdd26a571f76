// A usage event as the meter records it, for API tests that read usage: store's one
// builder (@spendgate/store/testing's usageEvent), `days` ago at 00:30 UTC (for today an hour
// ago, or today's midnight UTC when an hour ago was still yesterday).
import type { NewUsageEvent } from '@spendgate/store';
import { type UsageEventOwner, usageEvent as usageEventAt } from '@spendgate/store/testing';

const DAY_MS = 86_400_000;

export const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);

export function usageEvent(owner: UsageEventOwner, days: number, overrides: Partial<NewUsageEvent> = {}): NewUsageEvent {
  const at = days === 0 ? Math.max(Date.now() - 3_600_000, Date.parse(`${daysAgo(0)}T00:00:00Z`)) : Date.parse(`${daysAgo(days)}T00:30:00Z`);
  return usageEventAt(owner, new Date(at), overrides);
}
