import { describe, expect, it } from 'vitest';
import {
  addMonthsClamped,
  buildInvoice,
  type ChargeCount,
  type InvoiceInput,
  invoiceLineKey,
  meterUnitMicros,
  microsToPence,
  periodEndAfter,
  RECORDED_METERS,
  type TeamCounts,
} from './invoices.ts';
import { planTerms, seatMonthlyMicros, seatsMonthlyMicros } from './plans.ts';

const DAY_MS = 86_400_000;
const at = (iso: string) => new Date(iso);
/** March 2027: 31 days. */
const march = { start: at('2027-03-01T00:00:00Z'), end: at('2027-04-01T00:00:00Z') };
const growth = planTerms('growth');
const developers = planTerms('developers');

const units = (count: number, from = march.start, to: Date | null = null) => Array.from({ length: count }, (_, index) => ({ id: `u${index}`, from, to }));
const team = (overrides: Partial<TeamCounts> = {}): TeamCounts => ({
  teamId: 'team-a',
  charges: [],
  advisorInsights: [],
  units: { key: [], group: [], seat: [] },
  recorded: [],
  ...overrides,
});
const summary = (input: InvoiceInput) => buildInvoice(input).lines.map((line) => [line.kind, line.planSlug, line.quantity, line.amountMicros, line.amountPence]);

describe('plan terms for invoices', () => {
  it('prices Growth seats graduated: the 6th to 15th £8, 16th to 50th £7, then £6', () => {
    expect([5, 6, 15, 16, 51].map((seat) => seatMonthlyMicros(growth, seat))).toEqual([0n, 8_000_000n, 8_000_000n, 7_000_000n, 6_000_000n]);
    expect(seatsMonthlyMicros(growth, 5)).toBe(0n);
    expect(seatsMonthlyMicros(growth, 17)).toBe(94_000_000n); // 10 × £8 + 2 × £7
    expect(seatsMonthlyMicros(growth, 51)).toBe(331_000_000n); // 10 × £8 + 35 × £7 + 1 × £6
    expect(seatsMonthlyMicros(developers, 3)).toBe(10_000_000n);
    expect(seatsMonthlyMicros(planTerms('enterprise'), 400)).toBe(0n);
    expect(seatMonthlyMicros(planTerms('enterprise'), 400)).toBeNull();
  });
});

describe('billing periods', () => {
  it('runs a calendar month from the anchor, the day clamped to short months', () => {
    const anchor = at('2027-01-31T09:30:00Z');
    expect(addMonthsClamped(anchor, 1).toISOString()).toBe('2027-02-28T09:30:00.000Z');
    expect(periodEndAfter(anchor, anchor).toISOString()).toBe('2027-02-28T09:30:00.000Z');
    expect(periodEndAfter(anchor, at('2027-02-28T09:30:00Z')).toISOString()).toBe('2027-03-31T09:30:00.000Z');
    expect(periodEndAfter(anchor, at('2027-12-31T09:30:00Z')).toISOString()).toBe('2028-01-31T09:30:00.000Z');
    expect(periodEndAfter(anchor, at('2028-01-31T09:30:00Z')).toISOString()).toBe('2028-02-29T09:30:00.000Z');
    expect(periodEndAfter(at('2027-03-15T00:00:00Z'), at('2027-03-15T00:00:00Z')).toISOString()).toBe('2027-04-15T00:00:00.000Z');
  });
});

describe('an invoice', () => {
  it('charges a month of metered usage on Growth, each line to the penny by hand', () => {
    const charges: ChargeCount[] = [
      { rule: 'optimised-uplift', unitMicros: null, requests: 1_234n, billedMicros: 12_345_678n, unpricedRequests: 3n },
      { rule: 'optimised-minimum-fee', unitMicros: 1_800n, requests: 500n, billedMicros: 900_000n, unpricedRequests: 0n },
      { rule: 'byom-routing-fee', unitMicros: 4_000n, requests: 1_000n, billedMicros: 4_000_000n, unpricedRequests: 0n },
    ];
    const invoice = buildInvoice({
      period: march,
      plans: [{ plan: growth, from: march.start, to: march.end }],
      teams: [
        team({
          charges,
          advisorInsights: [{ priceMicros: 30_000n, count: 7n }],
          units: {
            // 12 keys all month (2 beyond 10), a 13th from noon on the 16th: 15.5 of 31 days.
            key: [...units(12), { id: 'k13', from: at('2027-03-16T12:00:00Z'), to: null }],
            // 11 groups for the first 10 days, then 10.
            group: [...units(10), { id: 'g11', from: at('2027-02-01T00:00:00Z'), to: at('2027-03-11T00:00:00Z') }],
            seat: units(17),
          },
        }),
      ],
    });
    expect(invoice.lines.map((line) => [line.kind, line.quantity, line.unitMicros, line.amountMicros, line.amountPence])).toEqual([
      ['plan', 1n, 99_000_000n, 99_000_000n, 9_900n],
      ['byom-routing-fee', 1_000n, 4_000n, 4_000_000n, 400n],
      ['optimised-minimum-fee', 500n, 1_800n, 900_000n, 90n],
      ['optimised-uplift', 1_234n, null, 12_345_678n, 1_235n], // £12.345678 → 1,234.5678p → 1,235p
      ['advisor-insights', 7n, 30_000n, 210_000n, 21n],
      ['extra-keys', 3n, 3_000_000n, 7_500_000n, 750n], // 2 × £3 + £3 × 15.5/31
      ['extra-groups', 1n, 4_000_000n, 1_290_323n, 129n], // £4 × 10/31 = £1.2903225… → 1,290,323 µ
      ['extra-seats', 12n, null, 94_000_000n, 9_400n], // 10 × £8 + 2 × £7
    ]);
    expect(invoice.totalPence).toBe(9_900n + 400n + 90n + 1_235n + 21n + 750n + 129n + 9_400n);
    const uplift = invoice.lines.find((line) => line.kind === 'optimised-uplift')!;
    expect([uplift.unpricedRequests, uplift.description]).toEqual([3n, "Optimised keys: 1,234 requests at base model cost plus the plan's uplift (3 unpriced, not billed)"]);
    expect(invoice.lines.every((line) => line.teamId === (line.kind === 'plan' ? null : 'team-a'))).toBe(true);
    expect(invoice.lines[0]!.description).toBe('Growth plan, 2027-03-01 to 2027-04-01');
  });

  it('prorates a plan changed mid-period by the time each was in force', () => {
    const change = at('2027-03-11T00:00:00Z'); // 10 days on Developers, 21 on Growth
    const lines = summary({
      period: march,
      plans: [
        { plan: developers, from: march.start, to: change },
        { plan: growth, from: change, to: march.end },
      ],
      teams: [team({ units: { key: units(3), group: units(2), seat: units(3) } })],
    });
    expect(lines).toEqual([
      ['plan', 'developers', 1n, 9_354_839n, 935n], // £29 × 10/31 = £9.3548387…
      ['plan', 'growth', 1n, 67_064_516n, 6_706n], // £99 × 21/31 = £67.0645161…
      ['extra-keys', 'developers', 1n, 1_612_903n, 161n], // 1 key beyond 2 at £5 × 10/31; Growth includes 10
      ['extra-seats', 'developers', 1n, 3_225_806n, 323n], // 1 seat beyond 2 at £10 × 10/31 = 322.58p
    ]);
  });

  it('stops at a cancellation: the plan and extras prorated to that moment', () => {
    const cancelled = at('2027-03-16T12:00:00Z'); // 15.5 of 31 days
    const lines = summary({ period: march, plans: [{ plan: growth, from: march.start, to: cancelled }], teams: [team({ units: { key: units(11), group: [], seat: [] } })] });
    expect(lines).toEqual([
      ['plan', 'growth', 1n, 49_500_000n, 4_950n],
      ['extra-keys', 'growth', 1n, 1_500_000n, 150n],
    ]);
    const invoice = buildInvoice({ period: march, plans: [{ plan: growth, from: march.start, to: cancelled }], teams: [] });
    expect(invoice.lines[0]!.description).toBe('Growth plan, 2027-03-01 to 2027-03-16 (prorated)');
  });

  it('charges usage recorded through the API at the unit price it was recorded at, a line per meter and price', () => {
    expect(RECORDED_METERS.map((meter) => meterUnitMicros(growth, meter))).toEqual([4_000n, 1_800n, 30_000n]);
    const invoice = buildInvoice({
      period: march,
      plans: [{ plan: growth, from: march.start, to: march.end }],
      teams: [
        team({
          recorded: [
            { meter: 'byom-requests', unitMicros: 4_000n, quantity: 250n },
            { meter: 'advisor-insights', unitMicros: 30_000n, quantity: 2n },
            { meter: 'byom-requests', unitMicros: 5_000n, quantity: 3n }, // recorded under Developers before a change
          ],
        }),
      ],
    });
    expect(invoice.lines.slice(1).map((line) => [line.kind, line.meter, line.quantity, line.unitMicros, line.amountMicros, line.amountPence, line.description])).toEqual([
      ['recorded-usage', 'advisor-insights', 2n, 30_000n, 60_000n, 6n, 'Recorded AI Advisor insights: 2 × £0.03'],
      ['recorded-usage', 'byom-requests', 250n, 4_000n, 1_000_000n, 100n, 'Recorded BYOM requests: 250 × £0.004'],
      ['recorded-usage', 'byom-requests', 3n, 5_000n, 15_000n, 2n, 'Recorded BYOM requests: 3 × £0.005'], // 1.5p → 2p
    ]);
    expect(invoice.lines[0]!.meter).toBeNull();
  });

  it('rounds each line half-up to the penny once, and totals the pence', () => {
    expect([microsToPence(5_000n), microsToPence(4_999n), microsToPence(15_000n), microsToPence(0n)]).toEqual([1n, 0n, 2n, 0n]);
    // Three lines of half a penny each: 1p each, 3p in all (not 1.5p rounded once).
    const invoice = buildInvoice({
      period: march,
      plans: [{ plan: planTerms('enterprise'), from: march.start, to: march.end }],
      teams: ['a', 'b', 'c'].map((teamId) => team({ teamId, charges: [{ rule: 'byom-routing-fee', unitMicros: 5_000n, requests: 1n, billedMicros: 5_000n, unpricedRequests: 0n }] })),
    });
    expect(invoice.lines.map((line) => [line.teamId, line.amountPence])).toEqual([
      ['a', 1n],
      ['b', 1n],
      ['c', 1n],
    ]);
    expect(invoice.totalPence).toBe(3n);
  });

  it('leaves out what charges and counts nothing, and Enterprise’s custom fee and allowances', () => {
    const lines = summary({
      period: march,
      plans: [{ plan: planTerms('enterprise'), from: march.start, to: march.end }],
      teams: [team({ charges: [{ rule: 'byom-routing-fee', unitMicros: 3_000n, requests: 0n, billedMicros: 0n, unpricedRequests: 0n }], units: { key: units(400), group: units(90), seat: units(300) } })],
    });
    expect(lines).toEqual([]);
  });

  it('keeps a line of unpriced requests only: counted, billed nothing', () => {
    const lines = summary({
      period: march,
      plans: [{ plan: growth, from: march.start, to: march.end }],
      teams: [team({ charges: [{ rule: 'optimised-uplift', unitMicros: null, requests: 2n, billedMicros: 0n, unpricedRequests: 2n }] })],
    });
    expect(lines[1]).toEqual(['optimised-uplift', null, 2n, 0n, 0n]);
  });

  it('counts units live only part of the segment, and ignores those outside it', () => {
    const lines = summary({
      period: march,
      plans: [{ plan: developers, from: march.start, to: march.end }],
      teams: [
        team({
          units: {
            key: [
              ...units(2),
              { id: 'before', from: at('2027-01-01T00:00:00Z'), to: at('2027-02-01T00:00:00Z') },
              { id: 'after', from: at('2027-04-02T00:00:00Z'), to: null },
              { id: 'one-day', from: at('2027-03-05T00:00:00Z'), to: at('2027-03-06T00:00:00Z') },
            ],
            group: [],
            seat: [],
          },
        }),
      ],
    });
    expect(lines[1]).toEqual(['extra-keys', 'developers', 1n, 161_290n, 16n]); // £5 × 1/31 = £0.16129…
  });

  it('refuses plan segments that leave a gap or run past the period', () => {
    const gap = { period: march, plans: [{ plan: growth, from: at('2027-03-02T00:00:00Z'), to: march.end }], teams: [] };
    expect(() => buildInvoice(gap)).toThrow(RangeError);
    const past = { period: march, plans: [{ plan: growth, from: march.start, to: new Date(march.end.getTime() + DAY_MS) }], teams: [] };
    expect(() => buildInvoice(past)).toThrow(RangeError);
  });

  it('names each line by what it counts', () => {
    const invoice = buildInvoice({ period: march, plans: [{ plan: growth, from: march.start, to: march.end }], teams: [] });
    expect(invoiceLineKey(invoice.lines[0]!)).toBe('plan|-|-|2027-03-01T00:00:00.000Z|2027-04-01T00:00:00.000Z|99000000');
  });
});
