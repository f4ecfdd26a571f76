// The change-of-plan preview, computed by hand: half a 30-day period left on Growth
// (£99) moving to Developers (£29); a third of it left (rounding to the penny); a trial
// or no billing period (nothing charged); a plan without a list price (no preview); the trial's days left.
import { describe, expect, it } from 'vitest';
import type { CurrentSubscription, Plan } from '../../api/subscription/types.ts';
import { prorationPreview, trialDaysLeft } from './proration.ts';

const plan = (price: Plan['price'], slug: string): Plan => ({ id: slug, name: slug, slug, description: '', price, features: [], createdAt: '2026-01-01T00:00:00Z' });
const growth = plan('99', 'growth');
const developers = plan(29, 'developers');
const enterprise = plan(null, 'enterprise');

const subscription = (status: CurrentSubscription['status']): CurrentSubscription => ({
  id: '00000000-0000-4000-8000-00000000a001',
  plan: 'growth',
  planName: 'Growth',
  status,
  trialEnd: null,
  isTrialing: status === 'trialing',
  currentPeriodStart: '2026-11-01T00:00:00.000Z',
  currentPeriodEnd: '2026-12-01T00:00:00.000Z',
  cancelAtPeriodEnd: false,
  canceledAt: null,
  hasPaymentMethod: true,
});

describe('the proration preview', () => {
  it('credits the unused half of Growth and charges half of Developers', () => {
    const preview = prorationPreview(subscription('active'), growth, developers, new Date('2026-11-16T00:00:00.000Z'));
    expect(preview).toEqual({ creditMicros: 49_500_000n, chargeMicros: 14_500_000n, netMicros: -35_000_000n });
  });

  it('rounds each side half-up to the penny: a third of £29 is £9.67, of £99 £33.00', () => {
    const preview = prorationPreview(subscription('active'), developers, growth, new Date('2026-11-21T00:00:00.000Z'));
    // 10 days of 30 left: 29/3 = 9.666… → £9.67; 99/3 = £33.
    expect(preview).toEqual({ creditMicros: 9_670_000n, chargeMicros: 33_000_000n, netMicros: 23_330_000n });
  });

  it('charges nothing during a trial', () => {
    expect(prorationPreview(subscription('trialing'), developers, growth, new Date('2026-11-16T00:00:00.000Z'))).toEqual({ creditMicros: 0n, chargeMicros: 0n, netMicros: 0n });
  });

  it('charges nothing outside a billing period', () => {
    const unbilled = { ...subscription('active'), currentPeriodStart: null, currentPeriodEnd: null };
    expect(prorationPreview(unbilled, developers, growth, new Date('2026-11-16T00:00:00.000Z'))).toEqual({ creditMicros: 0n, chargeMicros: 0n, netMicros: 0n });
  });

  it('has no preview for a plan priced by arrangement', () => {
    expect(prorationPreview(subscription('active'), growth, enterprise, new Date('2026-11-16T00:00:00.000Z'))).toBeNull();
  });

  it('counts the trial days left, a part-day as one', () => {
    const now = new Date('2026-11-26T12:00:00.000Z');
    expect(trialDaysLeft('2026-12-26T12:00:00.000Z', now)).toBe(30);
    expect(trialDaysLeft('2026-11-27T00:00:00.000Z', now)).toBe(1);
    expect(trialDaysLeft('2026-11-26T00:00:00.000Z', now)).toBe(0);
  });
});
