import { describe, expect, it } from 'vitest';
import { addMoney, decimalToMicros, formatMoney, microsToDecimalString, money, roundHalfUpDiv } from './money.ts';

describe('money', () => {
  it('holds whole micro-units as bigint', () => {
    expect(money(1_234, 'USD')).toEqual({ micros: 1_234n, currency: 'USD' });
    expect(money(10n, 'GBP')).toEqual({ micros: 10n, currency: 'GBP' });
  });

  it('rejects fractions of a micro and integers beyond float precision', () => {
    expect(() => money(1.5, 'USD')).toThrow(RangeError);
    expect(() => money(Number.NaN, 'USD')).toThrow(RangeError);
    expect(() => money(2 ** 53, 'USD')).toThrow(RangeError);
  });
});

describe('addMoney', () => {
  it('adds amounts of one currency', () => {
    // £1.00 + £0.25 = £1.25
    expect(addMoney(money(1_000_000n, 'GBP'), money(250_000n, 'GBP'))).toEqual(money(1_250_000n, 'GBP'));
  });

  it('refuses to mix currencies', () => {
    expect(() => addMoney(money(1n, 'GBP'), money(1n, 'USD'))).toThrow(/GBP.*USD/);
  });
});

describe('microsToDecimalString', () => {
  it('writes six exact decimals', () => {
    expect(microsToDecimalString(1_234n)).toBe('0.001234');
    expect(microsToDecimalString(12_500_000n)).toBe('12.500000');
    expect(microsToDecimalString(0n)).toBe('0.000000');
    expect(microsToDecimalString(-1n)).toBe('-0.000001');
    // beyond Number.MAX_SAFE_INTEGER micros (9007199254.740991 units) it stays exact
    expect(microsToDecimalString(123_456_789_012_345_678n)).toBe('123456789012.345678');
  });
});

describe('formatMoney', () => {
  it('shows every significant decimal, and at least two', () => {
    expect(formatMoney(money(1_234, 'USD'))).toBe('$0.001234');
    expect(formatMoney(money(12_500_000, 'GBP'))).toBe('£12.50');
    expect(formatMoney(money(1_230, 'USD'))).toBe('$0.00123');
    expect(formatMoney(money(100_000, 'USD'))).toBe('$0.10');
    expect(formatMoney(money(3_000_000, 'USD'))).toBe('$3.00');
    expect(formatMoney(money(0, 'GBP'))).toBe('£0.00');
  });

  it('puts the sign before the symbol', () => {
    expect(formatMoney(money(-2_500_000, 'GBP'))).toBe('-£2.50');
  });
});

describe('roundHalfUpDiv', () => {
  it('rounds to the nearest whole number, halves away from zero', () => {
    expect(roundHalfUpDiv(15n, 10n)).toBe(2n); // 1.5
    expect(roundHalfUpDiv(14n, 10n)).toBe(1n); // 1.4
    expect(roundHalfUpDiv(5n, 10n)).toBe(1n); // 0.5
    expect(roundHalfUpDiv(4n, 10n)).toBe(0n); // 0.4
    expect(roundHalfUpDiv(20n, 10n)).toBe(2n); // 2.0
    expect(roundHalfUpDiv(0n, 10n)).toBe(0n);
    expect(roundHalfUpDiv(-15n, 10n)).toBe(-2n); // -1.5
    expect(roundHalfUpDiv(-14n, 10n)).toBe(-1n); // -1.4
    expect(roundHalfUpDiv(15n, -10n)).toBe(-2n); // -1.5
    expect(roundHalfUpDiv(1_499_999n, 1_000_000n)).toBe(1n); // 1.499999
  });

  it('refuses to divide by zero', () => {
    expect(() => roundHalfUpDiv(1n, 0n)).toThrow(RangeError);
  });
});

describe('decimalToMicros', () => {
  it('parses exact decimals into micro-units', () => {
    expect(decimalToMicros('2.50')).toBe(2_500_000n);
    expect(decimalToMicros(2.5)).toBe(2_500_000n);
    expect(decimalToMicros('0.000125')).toBe(125n);
    expect(decimalToMicros('15')).toBe(15_000_000n);
  });

  it('refuses what is not an exact non-negative amount', () => {
    for (const bad of ['-1', '1.0000001', 'abc', '', '1e3', Number.NaN, 1e21]) expect(decimalToMicros(bad)).toBeUndefined();
  });
});
