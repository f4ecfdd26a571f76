/**
 * The overview's filters as they live in the URL (?start=&end=&group=&key=&model=
 * &provider=&granularity=, beside the dashboard's ?team=): read and checked from the
 * search params, so a link or a reload shows the same figures, and turned into the
 * usage calls' query. A value that is not well formed is dropped (the API's default
 * applies) rather than sent to fail.
 */
import { type Currency, decimalToMicros, formatMoney, money } from '@spendgate/core';
import type { Granularity, UsageFilters } from '../../api/usage/types.ts';

export interface OverviewSearch {
  team?: string;
  /** yyyy-mm-dd, the team's calendar; both inclusive. */
  start?: string;
  end?: string;
  group?: string;
  key?: string;
  model?: string;
  provider?: string;
  granularity?: Granularity;
}

export const FILTER_NAMES = ['start', 'end', 'group', 'key', 'model', 'provider', 'granularity'] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

const ISO_DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[\x21-\x7e]{1,256}$/;

const when = (value: unknown, pattern: RegExp): string | undefined => (typeof value === 'string' && pattern.test(value) ? value : undefined);

/** The overview's search params, checked (the router's validateSearch for /dashboard's filters). */
export function readOverviewSearch(search: Record<string, unknown>): OverviewSearch {
  const start = when(search.start, ISO_DAY);
  const end = when(search.end, ISO_DAY);
  const read: OverviewSearch = {
    team: typeof search.team === 'string' && search.team ? search.team : undefined,
    start,
    // A range ending before it starts would be refused: its end is dropped.
    end: start && end && end < start ? undefined : end,
    group: when(search.group, UUID),
    key: when(search.key, UUID),
    model: when(search.model, NAME),
    provider: when(search.provider, NAME),
    granularity: search.granularity === 'hour' || search.granularity === 'day' ? search.granularity : undefined,
  };
  return Object.fromEntries(Object.entries(read).filter(([, value]) => value !== undefined)) as OverviewSearch;
}

/** The usage calls' query for a team's overview under these filters. */
export function usageFiltersOf(teamId: string, search: OverviewSearch): UsageFilters {
  const filters: UsageFilters = {
    teamId,
    groupId: search.group,
    keyId: search.key,
    model: search.model,
    provider: search.provider,
    startDate: search.start,
    endDate: search.end,
  };
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as UsageFilters;
}

/** The search with one filter set (or cleared when `value` is empty), the others kept. */
export function withFilter(search: OverviewSearch, name: FilterName, value: string): OverviewSearch {
  const next: Record<string, unknown> = { ...search, [name]: value || undefined };
  return readOverviewSearch(next);
}

/** An amount the API gives as an exact decimal string, for people: '£12.50', '$0.001234'. */
export function amountText(decimal: string, currency: Currency): string {
  const micros = decimalToMicros(decimal);
  return micros === undefined ? `${decimal} ${currency}` : formatMoney(money(micros, currency));
}
