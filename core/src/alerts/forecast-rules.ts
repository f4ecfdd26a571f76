/**
 * The two alerts read from a stored daily spend forecast (slice D's, in the team's calendar
 * days). A projected breach: what a budget's window has spent, plus the forecast's upper 80 %
 * bound for each day left, reaches its hard or soft cap before the window ends — the alert
 * names that day. A spend spike: a day's actual spend above the forecast's upper 95 % bound
 * for that day, naming the key and the model that added most to it. Pure: GBP micros, days
 * as yyyy-mm-dd.
 */
import { formatMoney, money } from '../money.ts';
import type { AlertText, BudgetSpend } from './index.ts';

const DAY_MS = 86_400_000;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/** One forecast day's upper bounds (null on a day the forecast holds only the actual). */
export interface ForecastBounds {
  date: string;
  upper80Micros: bigint | null;
  upper95Micros: bigint | null;
}

export interface BreachInput {
  amountMicros: bigint;
  /** What the window spent on its complete days, before today. */
  spentBeforeTodayMicros: bigint;
  /** What today has spent so far. */
  spentTodayMicros: bigint;
  today: string;
  /** The window's last day. */
  lastDay: string;
  days: readonly ForecastBounds[];
}

export interface ProjectedBreach {
  /** The team calendar day the upper bound reaches the cap. */
  date: string;
  /** Spent so far plus the upper 80 % bounds up to and including that day. */
  projectedMicros: bigint;
}

/**
 * The first day, from today to the window's last, on which spent + upper 80 % bounds reaches
 * the cap; null when it does not before the window ends, or when the cap is already reached
 * (the 100 % threshold says so). Today counts the larger of its spend so far and its bound.
 * A day the stored forecast does not cover adds nothing, so a missing or stale forecast never
 * projects a breach by itself.
 */
export function projectedBreach(input: BreachInput): ProjectedBreach | null {
  if (input.spentBeforeTodayMicros + input.spentTodayMicros >= input.amountMicros) return null;
  const bounds = new Map(input.days.map((day) => [day.date, day.upper80Micros]));
  const todayBound = bounds.get(input.today) ?? null;
  let running = input.spentBeforeTodayMicros + (todayBound !== null && todayBound > input.spentTodayMicros ? todayBound : input.spentTodayMicros);
  for (let date = input.today; date <= input.lastDay; date = nextDay(date)) {
    if (date !== input.today) running += bounds.get(date) ?? 0n;
    if (running >= input.amountMicros) return { date, projectedMicros: running };
  }
  return null;
}

/** One alert per (budget, window): a new window re-arms it. */
export const breachDedupeKey = (budgetId: string, windowLabel: string) => `breach:${budgetId}:${windowLabel}`;

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd, 23rd … */
export function ordinalDay(day: number): string {
  const suffix = day % 100 >= 11 && day % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][day % 10] ?? 'th');
  return `${day}${suffix}`;
}

const WINDOW_WORDS: Record<BudgetSpend['window'], string> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' };
const gbp = (micros: bigint) => formatMoney(money(micros, 'GBP'));

/**
 * @example breachAlertText({ scope: "group", scopeName: "Research", window: "month", amountMicros: 2_000_000_000n, spentMicros: 1_200_000_000n, … }, { date: "2026-11-23", … })
 *   // { subject: "Research's £2000.00 monthly budget may run out on the 23rd", text: "Projected breach: at this rate the group Research's £2000.00 monthly budget runs out on the 23rd (2026-11-23) …" }
 */
export function breachAlertText(budget: BudgetSpend, breach: ProjectedBreach): AlertText {
  const amount = gbp(budget.amountMicros);
  const day = ordinalDay(Number(breach.date.slice(8, 10)));
  return {
    subject: `${budget.scopeName}'s ${amount} ${WINDOW_WORDS[budget.window]} budget may run out on the ${day}`,
    text:
      `Projected breach: at this rate the ${budget.scope} ${budget.scopeName}'s ${amount} ${WINDOW_WORDS[budget.window]} budget runs out on the ${day} (${breach.date}), ` +
      `before its window (from ${budget.windowLabel}) ends: ${gbp(budget.spentMicros)} spent so far, and the forecast's upper 80% bound reaches ${gbp(breach.projectedMicros)} by then.`,
  };
}

/** A spike must exceed the upper 95 % bound by at least this much (£1): a penny over a zero forecast is no news. */
export const SPIKE_MIN_EXCESS_MICROS = 1_000_000n;

/** Whether a day's actual spend is far outside its forecast: above the upper 95 % bound by at least £1. */
export const isSpendSpike = (actualMicros: bigint, upper95Micros: bigint) => actualMicros - upper95Micros >= SPIKE_MIN_EXCESS_MICROS;

/** One alert per (scope, day). */
export const spikeDedupeKey = (scopeId: string, day: string) => `spike:${scopeId}:${day}`;

/** Budget spend of one key and model, over some days. */
export interface SpendCell {
  /** Null for the team's spend without a key (the advisor's wording). */
  keyId: string | null;
  keyName: string;
  model: string;
  micros: bigint;
}

export interface Contributor {
  name: string;
  /** The day's spend less the usual day's (the baseline's mean), rounded down to the micro. */
  riseMicros: bigint;
}

/**
 * The key and the model whose spend rose most in the spike's day (or hour) above their usual
 * one — the mean of the `baselineLength` days (or hours) before it — ties to the first name;
 * null without spend.
 */
export function spikeContributors(day: readonly SpendCell[], baseline: readonly SpendCell[], baselineLength: number): { key: Contributor; model: Contributor } | null {
  const top = (name: (cell: SpendCell) => string): Contributor | null => {
    const rise = new Map<string, bigint>();
    for (const cell of day) rise.set(name(cell), (rise.get(name(cell)) ?? 0n) + cell.micros * BigInt(baselineLength));
    for (const cell of baseline) if (rise.has(name(cell))) rise.set(name(cell), rise.get(name(cell))! - cell.micros);
    let best: Contributor | null = null;
    for (const [candidate, scaled] of [...rise].sort(([a], [b]) => a.localeCompare(b))) {
      const riseMicros = scaled >= 0n ? scaled / BigInt(baselineLength) : -((-scaled + BigInt(baselineLength) - 1n) / BigInt(baselineLength));
      if (best === null || riseMicros > best.riseMicros) best = { name: candidate, riseMicros };
    }
    return best;
  };
  const key = top((cell) => cell.keyName);
  const model = top((cell) => cell.model);
  return key && model ? { key, model } : null;
}

export interface SpendSpike {
  scope: 'group' | 'team';
  scopeName: string;
  date: string;
  actualMicros: bigint;
  upper95Micros: bigint;
  contributors: { key: Contributor; model: Contributor } | null;
}

/**
 * @example spikeAlertText({ scope: "team", scopeName: "Acme", date: "2026-11-26", actualMicros: 50_000_000n, upper95Micros: 12_000_000n, contributors: { key: { name: "batch", riseMicros: 36_000_000n }, model: { name: "gpt-4o", riseMicros: 36_000_000n } } })
 *   // { subject: "Spend spike: Acme spent £50.00 on 2026-11-26", text: "Spend spike: the team Acme spent £50.00 on 2026-11-26, £38.00 above … Most of the rise came from the key "batch" (+£36.00 …) and the model gpt-4o (+£36.00)." }
 */
export function spikeAlertText(spike: SpendSpike): AlertText {
  const actual = gbp(spike.actualMicros);
  const blame = spike.contributors
    ? ` Most of the rise came from the key "${spike.contributors.key.name}" (+${gbp(spike.contributors.key.riseMicros)} over its usual day) and the model ${spike.contributors.model.name} (+${gbp(spike.contributors.model.riseMicros)}).`
    : '';
  return {
    subject: `Spend spike: ${spike.scopeName} spent ${actual} on ${spike.date}`,
    text:
      `Spend spike: the ${spike.scope} ${spike.scopeName} spent ${actual} on ${spike.date}, ${gbp(spike.actualMicros - spike.upper95Micros)} above ` +
      `the forecast's upper 95% bound of ${gbp(spike.upper95Micros)} for that day.${blame}`,
  };
}
