// The one usage shape every provider adapter maps its response into, so pricing,
// budgets and reports never need to know which provider answered.

export interface Usage {
  /** Input tokens billed at the base input rate (excluding cache reads and cache writes). */
  inputTokens: number;
  /** Prompt-cache hits. */
  cachedReadTokens: number;
  /** Prompt-cache writes with the 5-minute TTL (the default write). */
  cacheWrite5mTokens: number;
  /** Prompt-cache writes with the 1-hour TTL. */
  cacheWrite1hTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
  /** The part of outputTokens that was reasoning/thinking. */
  reasoningTokens: number;
  /** Per-call units, e.g. `{ web_search: 2 }`. */
  units?: Record<string, number>;
}

const TOKEN_FIELDS = [
  'inputTokens',
  'cachedReadTokens',
  'cacheWrite5mTokens',
  'cacheWrite1hTokens',
  'outputTokens',
  'reasoningTokens',
] as const;

export function emptyUsage(): Usage {
  return plainUsage(0, 0);
}

/** Usage of plain input and output tokens only (no cache, no reasoning): estimates and worst cases. */
export function plainUsage(inputTokens: number, outputTokens: number): Usage {
  return {
    inputTokens,
    cachedReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens,
    reasoningTokens: 0,
  };
}

/** Every token the request consumed: input, cache reads, both cache writes and output. */
export function totalTokens(usage: Usage): number {
  return (
    usage.inputTokens +
    usage.cachedReadTokens +
    usage.cacheWrite5mTokens +
    usage.cacheWrite1hTokens +
    usage.outputTokens
  );
}

/** Sums two usage records field by field, units by name. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = emptyUsage();
  for (const field of TOKEN_FIELDS) sum[field] = a[field] + b[field];
  if (a.units || b.units) {
    const totals = new Map(Object.entries(a.units ?? {}));
    for (const [unit, count] of Object.entries(b.units ?? {})) {
      totals.set(unit, (totals.get(unit) ?? 0) + count);
    }
    sum.units = Object.fromEntries(totals);
  }
  return sum;
}

/**
 * Lists what is wrong with a usage record; an empty list means it is valid.
 * Counts must be non-negative safe integers and reasoning cannot exceed output.
 *
 * @example validateUsage({ ...emptyUsage(), reasoningTokens: 5 })
 * // ['reasoningTokens (5) exceeds outputTokens (0)']
 */
export function validateUsage(usage: Usage): string[] {
  const problems: string[] = [];
  const check = (name: string, count: number) => {
    if (!Number.isSafeInteger(count) || count < 0) {
      problems.push(`${name} must be a non-negative integer, got ${count}`);
    }
  };
  for (const field of TOKEN_FIELDS) check(field, usage[field]);
  for (const [unit, count] of Object.entries(usage.units ?? {})) check(`units.${unit}`, count);
  if (usage.reasoningTokens > usage.outputTokens) {
    problems.push(
      `reasoningTokens (${usage.reasoningTokens}) exceeds outputTokens (${usage.outputTokens})`,
    );
  }
  return problems;
}
