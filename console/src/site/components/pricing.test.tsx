// @vitest-environment happy-dom
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../api/subscription/types.ts';
import { SALES_EMAIL } from '../../shared/config.ts';
import { renderInSite } from '../../testing/render.tsx';
import { PlanCard } from '../pages/PricingPage.tsx';
import { FEATURE_MATRIX, listedPlans, PLAN_FOOTNOTES, planAction, priceLabel, usagePricingRows } from './pricing.ts';

const plan = (slug: string, name: string, price: Plan['price'], createdAt: string): Plan => ({
  id: `id-${slug}`,
  slug,
  name,
  description: `${name} plan`,
  price,
  features: [`${name} feature`],
  createdAt,
});

const developers = plan('developers', 'Developers', 29, '2025-01-02T00:00:00Z');
const growth = plan('growth', 'Growth', 99, '2025-01-03T00:00:00Z');
const enterprise = plan('enterprise', 'Enterprise', null, '2025-01-04T00:00:00Z');
const freeTrial = plan('free-trial', 'Free Trial', 0, '2025-01-01T00:00:00Z');

afterEach(cleanup);

describe('listedPlans', () => {
  it('hides free trials and orders by createdAt, oldest first', () => {
    expect(listedPlans([enterprise, freeTrial, growth, developers]).map((p) => p.slug)).toEqual(['developers', 'growth', 'enterprise']);
  });
});

describe('priceLabel and planAction', () => {
  it("reads '£{price}/month', with no price for Enterprise", () => {
    expect(priceLabel(developers)).toBe('£29/month');
    expect(priceLabel(plan('growth', 'Growth', '99.50', '2025-01-03T00:00:00Z'))).toBe('£99.50/month');
    expect(priceLabel({ ...enterprise, price: 500 })).toBeNull();
  });

  it('sends Enterprise to sales by e-mail and every other plan to /register?plan={planId}', () => {
    expect(planAction(enterprise)).toMatchObject({ kind: 'contact-sales', label: 'Contact Sales' });
    expect(planAction(enterprise).kind === 'contact-sales' && planAction(enterprise)).toMatchObject({ href: expect.stringMatching(`^mailto:${SALES_EMAIL}`) });
    expect(planAction(growth)).toEqual({ kind: 'register', label: 'Choose Growth', planId: 'id-growth' });
  });
});

describe('PlanCard', () => {
  it("marks Growth 'Most Popular' and links it to registration with its plan id", async () => {
    await renderInSite(<PlanCard plan={growth} />);
    const card = screen.getByTestId('plan-card');
    expect(within(card).getByText('Most Popular')).toBeTruthy();
    expect(within(card).getByText('£99/month')).toBeTruthy();
    expect(within(card).getByRole('link', { name: 'Choose Growth' }).getAttribute('href')).toBe('/register?plan=id-growth');
  });

  it('shows Enterprise without a price and with a Contact Sales mail link', async () => {
    await renderInSite(<PlanCard plan={enterprise} />);
    const card = screen.getByTestId('plan-card');
    expect(within(card).queryByText(/£.*\/month/)).toBeNull();
    expect(within(card).queryByText('Most Popular')).toBeNull();
    expect(within(card).getByRole('link', { name: 'Contact Sales' }).getAttribute('href')).toMatch(`mailto:${SALES_EMAIL}`);
  });
});

describe('usage-based pricing table (spec §9)', () => {
  const rowOf = (item: string) => usagePricingRows.find((row) => row.item.startsWith(item))?.values;

  it('carries the plan terms for Developers, Growth and Enterprise', () => {
    expect(rowOf('Optimised key token uplift')).toEqual({ developers: '30%', growth: '25%', enterprise: '20%' });
    expect(rowOf('Minimum tokens per request')).toEqual({ developers: '100', growth: '100', enterprise: '100' });
    expect(rowOf('Fee per request below the minimum')).toEqual({ developers: '£0.002', growth: '£0.0018', enterprise: '£0.0015' });
    expect(rowOf('Optimised keys included')).toEqual({ developers: '2, then £5/key/month', growth: '10, then £3/key/month', enterprise: 'Unlimited' });
    expect(rowOf('Price per group over the limit')).toEqual({ developers: '£5', growth: '£4', enterprise: 'n/a' });
    expect(rowOf('BYOM routing fee')).toEqual({ developers: '£0.005', growth: '£0.004', enterprise: '£0.003' });
    expect(rowOf('AI Advisor insight')).toEqual({ developers: '£0.03', growth: '£0.03', enterprise: '£0.02' });
    expect(rowOf('Cost dashboard look-back')).toEqual({ developers: '7 days', growth: '90 days', enterprise: 'Unlimited' });
    expect(rowOf('Seats')).toEqual({ developers: '2 free, then £10/user', growth: '5 free, then £8 to £6/user', enterprise: 'Custom' });
    expect(rowOf('Spend alerts')).toEqual({ developers: 'E-mail', growth: 'E-mail', enterprise: 'E-mail, Slack, Teams, SMS' });
  });

  it('keeps the enterprise-only features to Enterprise in the matrix', () => {
    for (const feature of ['GPU infrastructure analytics', 'Idle resource detection', 'Single sign-on (SSO)', 'RBAC with audit logs', 'ISO / SOC2 readiness', 'Custom endpoint']) {
      expect(FEATURE_MATRIX.find((row) => row.feature === feature)?.plans).toEqual({ developers: false, growth: false, enterprise: true });
    }
    // The matrix reads the plan terms: Growth's 10 optimised keys (the spec's matrix said 5), and a footnote says why.
    expect(FEATURE_MATRIX.find((row) => row.feature === 'Optimised keys included')?.plans).toEqual({ developers: '2', growth: '10', enterprise: 'Unlimited' });
    expect(FEATURE_MATRIX.find((row) => row.feature === 'Spend alerts')?.plans).toEqual({ developers: 'E-mail', growth: 'E-mail', enterprise: 'Slack, Teams, SMS' });
    expect(FEATURE_MATRIX.find((row) => row.feature === 'Cost dashboard look-back')?.plans).toEqual({ developers: '7 days', growth: '90 days', enterprise: 'Unlimited' });
    expect(PLAN_FOOTNOTES.map((note) => note.plan)).toEqual(['Growth', 'Growth']);
    expect(PLAN_FOOTNOTES[0]!.text).toContain('10 optimised keys');
  });
});
