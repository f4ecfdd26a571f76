/**
 * Pricing rules (spec §2 /pricing, §9): which plans are shown and in what order, how a
 * price reads, what a plan's button does, and the usage-based pricing table drawn
 * from the plan terms in @spendgate/core.
 */
import { formatMoney, money, PLANS, type PlanSlug, type PlanTerms } from '@spendgate/core';
import type { Plan } from '../../api/subscription/types.ts';
import { salesMailto } from '../../shared/config.ts';

export const FREE_TRIAL_SLUG = 'free-trial';
export const MOST_POPULAR_SLUG = 'growth';
export const CONTACT_SALES_SLUG = 'enterprise';

/** The plans a visitor can pick: free trials hidden, oldest first. */
export function listedPlans(plans: readonly Plan[]): Plan[] {
  return plans.filter((plan) => plan.slug !== FREE_TRIAL_SLUG).sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
}

export const isMostPopular = (plan: Plan) => plan.slug === MOST_POPULAR_SLUG;
export const isContactSales = (plan: Plan) => plan.slug === CONTACT_SALES_SLUG;

/** '£{price}/month', or null for Enterprise, which shows no price. */
export function priceLabel(plan: Plan): string | null {
  if (isContactSales(plan) || plan.price === null) return null;
  return `£${plan.price}/month`;
}

export type PlanAction = { kind: 'contact-sales'; label: 'Contact Sales'; href: string } | { kind: 'register'; label: string; planId: string };

export function planAction(plan: Plan): PlanAction {
  if (isContactSales(plan)) return { kind: 'contact-sales', label: 'Contact Sales', href: salesMailto() };
  return { kind: 'register', label: `Choose ${plan.name}`, planId: plan.id };
}

// ---- Usage-based pricing table (spec §9), one column per listed plan ----

const pounds = (micros: bigint) => formatMoney(money(micros, 'GBP')).replace(/\.00$/, '');
const percent = (basisPoints: number) => `${basisPoints / 100}%`;

export const PRICED_PLANS: readonly PlanTerms[] = PLANS.filter((plan) => plan.listed);

export interface PricingRow {
  item: string;
  values: Record<string, string>;
}

const SUPPORT_LABELS: Record<PlanTerms['support'], string> = {
  community: 'Community only',
  priority: 'Priority queue',
  dedicated: 'Dedicated, with an SLA',
};
const CHANNEL_LABELS = { email: 'E-mail', slack: 'Slack', teams: 'Teams', sms: 'SMS' } as const;

function row(item: string, cell: (plan: PlanTerms) => string): PricingRow {
  return { item, values: Object.fromEntries(PRICED_PLANS.map((plan) => [plan.slug, cell(plan)])) };
}

/** An extra seat's price, or the range a tiered one falls through: "£10", "£8 to £6". */
function seatPrices(plan: PlanTerms): string {
  const tiers = plan.extraSeatTiers ?? [];
  const [first, last] = [tiers[0]?.monthlyMicros ?? 0n, tiers.at(-1)?.monthlyMicros ?? 0n];
  return first === last ? pounds(first) : `${pounds(first)} to ${pounds(last)}`;
}

const includedThenExtra = (included: number | null, extra: bigint | null, unit: string) =>
  included === null ? 'Unlimited' : `${included}, then ${extra === null ? 'custom pricing' : `${pounds(extra)}${unit}`}`;

export const usagePricingRows: PricingRow[] = [
  row('Optimised key token uplift over base model cost', (plan) => percent(plan.upliftBasisPoints)),
  row('Minimum tokens per request (optimised keys)', (plan) => String(plan.minimumTokensPerRequest)),
  row('Fee per request below the minimum', (plan) => pounds(plan.belowMinimumFeeMicros)),
  row('Optimised keys included', (plan) => includedThenExtra(plan.optimisedKeysIncluded, plan.extraOptimisedKeyMonthlyMicros, '/key/month')),
  row('Synthetic groups', (plan) => (plan.syntheticGroupsIncluded === null ? 'Unlimited, custom pricing' : `Up to ${plan.syntheticGroupsIncluded}`)),
  row('Price per group over the limit', (plan) => (plan.extraGroupMonthlyMicros === null ? 'n/a' : pounds(plan.extraGroupMonthlyMicros))),
  row('BYOM routing fee per request', (plan) => pounds(plan.byomRoutingFeeMicros)),
  row('AI Advisor insight, each', (plan) => pounds(plan.advisorInsightMicros)),
  row('Cost dashboard look-back', (plan) => (plan.lookBackDays === null ? 'Unlimited' : `${plan.lookBackDays} days`)),
  row('Seats', (plan) => (plan.seatsIncluded === null ? 'Custom' : `${plan.seatsIncluded} free, then ${seatPrices(plan)}/user`)),
  row('Spend alerts', (plan) => plan.alertChannels.map((channel) => CHANNEL_LABELS[channel]).join(', ')),
  row('Support', (plan) => SUPPORT_LABELS[plan.support]),
];

/** What the plan terms' footnotes say, each naming its plan, printed under the pricing tables. */
export const PLAN_FOOTNOTES: { plan: string; text: string }[] = PRICED_PLANS.flatMap((plan) => plan.footnotes.map((text) => ({ plan: plan.name, text })));

// ---- Core features matrix: true = included, false = not, text = how much (from the plan terms where they say) ----

type FeatureCell = boolean | string;
type PricedSlug = Exclude<PlanSlug, 'free-trial'>;

const fromTerms = (cell: (plan: PlanTerms) => FeatureCell) =>
  Object.fromEntries(PRICED_PLANS.map((plan) => [plan.slug, cell(plan)])) as Record<PricedSlug, FeatureCell>;

export const FEATURE_MATRIX: { feature: string; plans: Record<PricedSlug, FeatureCell> }[] = [
  { feature: 'Unified usage dashboard', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'Multi-model support', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'Bring-your-own-key integration', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'Optimised keys included', plans: fromTerms((plan) => (plan.optimisedKeysIncluded === null ? 'Unlimited' : String(plan.optimisedKeysIncluded))) },
  { feature: 'Synthetic groups', plans: fromTerms((plan) => (plan.syntheticGroupsIncluded === null ? 'Unlimited' : `Up to ${plan.syntheticGroupsIncluded}`)) },
  { feature: 'Smart model distribution', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'BYOM routing', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'AI Advisor cost optimisation tips', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'Cost forecasting', plans: { developers: true, growth: true, enterprise: true } },
  { feature: 'Spend alerts', plans: { developers: 'E-mail', growth: 'E-mail', enterprise: 'Slack, Teams, SMS' } },
  { feature: 'Cost dashboard look-back', plans: fromTerms((plan) => (plan.lookBackDays === null ? 'Unlimited' : `${plan.lookBackDays} days`)) },
  { feature: 'GPU infrastructure analytics', plans: { developers: false, growth: false, enterprise: true } },
  { feature: 'Idle resource detection', plans: { developers: false, growth: false, enterprise: true } },
  { feature: 'Single sign-on (SSO)', plans: { developers: false, growth: false, enterprise: true } },
  { feature: 'RBAC with audit logs', plans: { developers: false, growth: false, enterprise: true } },
  { feature: 'ISO / SOC2 readiness', plans: { developers: false, growth: false, enterprise: true } },
  { feature: 'Custom endpoint', plans: { developers: false, growth: false, enterprise: true } },
  { feature: 'Support', plans: { developers: 'Community', growth: 'Priority queue', enterprise: 'Dedicated + SLA' } },
];
