import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, totalTokens, type Usage, validateUsage } from './usage.ts';

const usage = (fields: Partial<Usage>): Usage => ({ ...emptyUsage(), ...fields });

describe('emptyUsage', () => {
  it('counts nothing', () => {
    expect(emptyUsage()).toEqual({
      inputTokens: 0,
      cachedReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    });
  });
});

describe('totalTokens', () => {
  it('adds input, cache reads, both cache writes and output, counting reasoning once', () => {
    const u = usage({
      inputTokens: 100,
      cachedReadTokens: 20,
      cacheWrite5mTokens: 3,
      cacheWrite1hTokens: 4,
      outputTokens: 50,
      reasoningTokens: 10,
    });
    // 100 + 20 + 3 + 4 + 50 = 177 (the 10 reasoning tokens are inside the 50)
    expect(totalTokens(u)).toBe(177);
  });
});

describe('addUsage', () => {
  it('sums every field and merges units by name', () => {
    const a = usage({ inputTokens: 1, cachedReadTokens: 2, outputTokens: 5, reasoningTokens: 1, units: { web_search: 1 } });
    const b = usage({
      inputTokens: 10,
      cacheWrite5mTokens: 3,
      cacheWrite1hTokens: 4,
      outputTokens: 7,
      reasoningTokens: 2,
      units: { web_search: 2, file_search: 1 },
    });
    expect(addUsage(a, b)).toEqual({
      inputTokens: 11,
      cachedReadTokens: 2,
      cacheWrite5mTokens: 3,
      cacheWrite1hTokens: 4,
      outputTokens: 12,
      reasoningTokens: 3,
      units: { web_search: 3, file_search: 1 },
    });
  });

  it('leaves units out when neither side has any', () => {
    expect('units' in addUsage(emptyUsage(), emptyUsage())).toBe(false);
  });

  it('treats unit names as plain data', () => {
    expect(addUsage(usage({}), usage({ units: { constructor: 2 } })).units).toEqual({ constructor: 2 });
  });
});

describe('validateUsage', () => {
  it('accepts a well-formed record', () => {
    expect(validateUsage(usage({ inputTokens: 5, outputTokens: 3, reasoningTokens: 3, units: { web_search: 1 } }))).toEqual([]);
  });

  it('names every count that is negative, fractional or not a number', () => {
    const problems = validateUsage(usage({ inputTokens: -1, cachedReadTokens: 1.5, outputTokens: Number.NaN, units: { web_search: -2 } }));
    expect(problems).toEqual([
      'inputTokens must be a non-negative integer, got -1',
      'cachedReadTokens must be a non-negative integer, got 1.5',
      'outputTokens must be a non-negative integer, got NaN',
      'units.web_search must be a non-negative integer, got -2',
    ]);
  });

  it('refuses more reasoning than output', () => {
    expect(validateUsage(usage({ outputTokens: 4, reasoningTokens: 5 }))).toEqual([
      'reasoningTokens (5) exceeds outputTokens (4)',
    ]);
  });
});
