// The pricing page (/pricing): plan cards from the server, the core features matrix
// and the usage-based pricing table from the plan terms.
import { useSuspenseQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { plansQuery } from '../../api/subscription/queries.ts';
import type { Plan } from '../../api/subscription/types.ts';
import { Icon } from '../../shared/ui/Icon.tsx';
import { FEATURE_MATRIX, isMostPopular, listedPlans, PLAN_FOOTNOTES, PRICED_PLANS, planAction, priceLabel, usagePricingRows } from '../components/pricing.ts';

export function PlanCard({ plan }: { plan: Plan }) {
  const price = priceLabel(plan);
  const action = planAction(plan);
  const popular = isMostPopular(plan);
  return (
    <article className={popular ? 'plan-card plan-card--popular' : 'plan-card'} data-testid="plan-card" data-plan={plan.slug}>
      {popular && <p className="plan-card__badge">Most Popular</p>}
      <h3 className="plan-card__name">{plan.name}</h3>
      <p className="plan-card__description">{plan.description}</p>
      <p className="plan-card__price">{price ?? 'Custom pricing'}</p>
      {action.kind === 'contact-sales' ? (
        <a className="button button--ghost button--block" href={action.href}>
          {action.label}
        </a>
      ) : (
        <Link to="/register" search={{ plan: action.planId }} className={popular ? 'button button--primary button--block' : 'button button--ghost button--block'}>
          {action.label}
        </Link>
      )}
      <ul className="plan-card__features">
        {plan.features.map((feature) => (
          <li key={feature}>
            <Icon name="check" size={18} /> {feature}
          </li>
        ))}
      </ul>
    </article>
  );
}

/** A table with one column per priced plan: a label per row, then that row's cell for each plan. */
function PlanTable({
  firstColumn,
  rows,
  className = '',
}: {
  firstColumn: string;
  rows: { label: string; cell: (slug: string) => ReactNode }[];
  className?: string;
}) {
  return (
    <div className="table-scroll">
      <table className={`matrix ${className}`.trim()}>
        <thead>
          <tr>
            <th scope="col">{firstColumn}</th>
            {PRICED_PLANS.map((plan) => (
              <th key={plan.slug} scope="col">
                {plan.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label}>
              <th scope="row">{row.label}</th>
              {PRICED_PLANS.map((plan) => (
                <td key={plan.slug}>{row.cell(plan.slug)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FeatureCell({ value }: { value: boolean | string }) {
  if (value === true)
    return (
      <span className="matrix__yes" role="img" aria-label="Included">
        <Icon name="check" size={18} />
      </span>
    );
  if (value === false)
    return (
      <span className="matrix__no" role="img" aria-label="Not included">
        —
      </span>
    );
  return <span>{value}</span>;
}

export function PricingPage() {
  const { data: plans } = useSuspenseQuery(plansQuery());
  const shown = listedPlans(plans);
  return (
    <main className="pricing">
      <section className="hero hero--compact">
        <div className="hero__inner hero__inner--centered">
          <p className="eyebrow eyebrow--light">Pricing Plans</p>
          <h1 className="hero__title">Simple plans, metered usage</h1>
          <p className="hero__lead">Start with the first 60 days free — no credit card required. Pay for what you use and cancel at any time.</p>
        </div>
      </section>

      <section className="section section--overlap" aria-label="Plans">
        <div className="section__inner">
          <div className="plan-grid">
            {shown.map((plan) => (
              <PlanCard key={plan.id} plan={plan} />
            ))}
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="matrix-heading">
        <div className="section__inner">
          <h2 id="matrix-heading" className="section__title section__title--center">
            Core features
          </h2>
          <PlanTable
            firstColumn="Feature"
            rows={FEATURE_MATRIX.map((row) => ({
              label: row.feature,
              cell: (slug: string) => <FeatureCell value={row.plans[slug as keyof typeof row.plans]} />,
            }))}
          />
        </div>
      </section>

      <section className="section section--tinted" aria-labelledby="usage-heading">
        <div className="section__inner">
          <h2 id="usage-heading" className="section__title section__title--center">
            Usage-based pricing
          </h2>
          <p className="section__lead section__lead--center">
            Provider costs on your own keys are billed by your provider. These are each plan's usage terms on top.
          </p>
          <PlanTable
            className="matrix--usage"
            firstColumn="Item"
            rows={usagePricingRows.map((row) => ({ label: row.item, cell: (slug: string) => row.values[slug] }))}
          />
          <ul className="pricing__footnotes" aria-label="Notes on the plan terms">
            {PLAN_FOOTNOTES.map((note) => (
              <li key={note.text}>
                <strong>{note.plan}:</strong> {note.text}
              </li>
            ))}
          </ul>
        </div>
      </section>
    </main>
  );
}
