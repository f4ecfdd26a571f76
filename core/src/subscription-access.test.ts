import { describe, expect, it } from 'vitest';
import { type SubscriptionState, statusAt, subscriptionAccess } from './subscription-access.ts';

const trialEnd = new Date('2027-03-01T00:00:00Z');
const before = new Date('2027-02-27T12:00:00Z');
const after = new Date('2027-03-01T00:00:00Z'); // the trial's last instant is just before its end
const trial = (overrides: Partial<SubscriptionState> = {}): SubscriptionState => ({ planSlug: 'growth', status: 'trialing', trialEnd, hasPaymentMethod: false, ...overrides });

describe('what a subscription allows, on a clock the test sets', () => {
  it('serves every key kind during the trial, counting the days left, and charges no extras', () => {
    expect(subscriptionAccess(trial(), before)).toEqual({
      status: 'trialing',
      trialDaysLeft: 2, // 1.5 days, rounded up
      keys: { byok: true, optimised: true, byom: true },
      chargesExtras: false,
      stoppedBecause: null,
    });
  });

  it('pauses a trial that ends without a payment method: BYOK keys keep working, optimised and BYOM stop, saying why', () => {
    const access = subscriptionAccess(trial(), after);
    expect([access.status, access.keys, access.trialDaysLeft, access.chargesExtras]).toEqual(['paused', { byok: true, optimised: false, byom: false }, null, false]);
    expect(access.stoppedBecause).toBe(
      'The free trial of the Growth plan ended on 2027-03-01 without a payment method: add one to use optimised and BYOM keys again (BYOK keys keep working).',
    );
  });

  it('starts billing when the trial ends with a payment method on a paid plan', () => {
    expect(statusAt(trial({ hasPaymentMethod: true }), after)).toBe('active');
    expect(subscriptionAccess(trial({ hasPaymentMethod: true }), after)).toMatchObject({ keys: { optimised: true, byom: true }, chargesExtras: true });
    // The free-trial plan has no price: it needs a plan chosen, card or not.
    const noPlan = subscriptionAccess(trial({ planSlug: 'free-trial', hasPaymentMethod: true }), after);
    expect([noPlan.status, noPlan.stoppedBecause]).toEqual([
      'paused',
      'The free trial ended on 2027-03-01: choose a plan and add a payment method to use optimised and BYOM keys again (BYOK keys keep working).',
    ]);
  });

  it('keeps a past-due subscription serving while the payment is retried, and stops a cancelled one like a paused one', () => {
    expect(subscriptionAccess(trial({ status: 'past_due' }), after).keys).toEqual({ byok: true, optimised: true, byom: true });
    const cancelled = subscriptionAccess(trial({ status: 'canceled', planSlug: 'developers' }), after);
    expect([cancelled.keys, cancelled.stoppedBecause]).toEqual([
      { byok: true, optimised: false, byom: false },
      'The Developers subscription is cancelled: subscribe again to use optimised and BYOM keys (BYOK keys keep working).',
    ]);
    expect(subscriptionAccess(trial({ status: 'active' }), after)).toMatchObject({ status: 'active', chargesExtras: true, trialDaysLeft: null });
  });
});
