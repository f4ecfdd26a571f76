// The landing page (/): hero, key features, free trial, call to action, FAQ.
import { useSuspenseQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { faqListQuery } from '../../api/faqs/queries.ts';
import { PRODUCT_NAME } from '../../shared/config.ts';
import { FaqSection } from '../components/FaqList.tsx';
import { IconCard } from '../components/IconCard.tsx';
import { KEY_FEATURES, MARKETING_STATS, PROVIDERS } from '../components/marketing.ts';

function SpendPreview() {
  const bars = [38, 52, 45, 61, 58, 73, 49, 66, 81, 70, 64, 55];
  return (
    <div className="preview" aria-hidden="true">
      <div className="preview__header">
        <span className="preview__dot" />
        <span className="preview__dot" />
        <span className="preview__dot" />
        <span className="preview__title">{PRODUCT_NAME} · Spend this month</span>
      </div>
      <div className="preview__kpis">
        <div>
          <p className="preview__label">Spend to date</p>
          <p className="preview__value">£12,480</p>
          <p className="preview__delta preview__delta--good">−18% vs last month</p>
        </div>
        <div>
          <p className="preview__label">Forecast</p>
          <p className="preview__value">£19,900</p>
          <p className="preview__delta">Budget £22,000</p>
        </div>
      </div>
      <div className="preview__chart">
        {bars.map((height, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a fixed decorative series.
          <span key={index} className="preview__bar" style={{ height: `${height}%` }} />
        ))}
      </div>
      <ul className="preview__groups">
        <li>
          <span>Search team</span>
          <span className="preview__meter">
            <span style={{ width: '72%' }} />
          </span>
          <span>£5,210</span>
        </li>
        <li>
          <span>Support bot</span>
          <span className="preview__meter">
            <span style={{ width: '46%' }} />
          </span>
          <span>£3,340</span>
        </li>
        <li>
          <span>Data science</span>
          <span className="preview__meter">
            <span style={{ width: '28%' }} />
          </span>
          <span>£2,030</span>
        </li>
      </ul>
    </div>
  );
}

export function LandingPage() {
  const { data: faqs } = useSuspenseQuery(faqListQuery());
  return (
    <main className="landing">
      <section className="hero">
        <div className="hero__inner landing__hero">
          <div className="hero__copy">
            <p className="eyebrow eyebrow--light">AI spend control for every provider</p>
            <h1 className="hero__title">Work at the Frontier of AI — with control.</h1>
            <p className="hero__lead">
              See tokens, prompts and cost across every AI provider in real time. Cap and budget spend, get alerts, route workloads to cheaper
              models and forecast next month's AI bill — before it lands.
            </p>
            <div className="hero__actions">
              <Link to="/pricing" className="button button--primary button--large">
                View Pricing Plans
              </Link>
              <Link to="/help-center" className="button button--light button--large">
                Learn More
              </Link>
            </div>
            <p className="hero__note">First 60 days free · No credit card required · Cancel any time</p>
          </div>
          <SpendPreview />
        </div>
      </section>

      <section className="providers-strip" aria-label="Providers">
        <p>One gateway for</p>
        <ul>
          {PROVIDERS.slice(0, 6).map((provider) => (
            <li key={provider}>{provider}</li>
          ))}
        </ul>
      </section>

      <section className="section">
        <div className="section__inner">
          <div className="stats">
            {MARKETING_STATS.map((stat) => (
              <div key={stat.figure} className="stat">
                <p className="stat__figure">{stat.figure}</p>
                <p className="stat__label">{stat.label}</p>
              </div>
            ))}
          </div>
        </div>
      </section>

      <section className="section section--tinted" aria-labelledby="features-heading">
        <div className="section__inner">
          <p className="eyebrow">Key features</p>
          <h2 id="features-heading" className="section__title">
            Everything you need to run AI at a predictable cost
          </h2>
          <p className="section__lead">
            {PRODUCT_NAME} sits between your applications and your AI providers. Official SDKs work unchanged — only the base URL and the key
            differ.
          </p>
          <div className="feature-grid">
            {KEY_FEATURES.map((feature) => (
              <IconCard key={feature.title} {...feature} />
            ))}
          </div>
        </div>
      </section>

      <section className="section">
        <div className="section__inner">
          <div className="trial-band">
            <div>
              <h2>Try everything, free, for two months.</h2>
              <p>Metered billing afterwards: pay only for what you use, and cancel whenever you like. No credit card to start.</p>
            </div>
            <Link to="/register" className="button button--primary button--large">
              Get the first 60 days free
            </Link>
          </div>
        </div>
      </section>

      <section className="section cta-section">
        <div className="section__inner cta">
          <p className="cta__label">Start today</p>
          <h2 className="cta__title">Stop guessing what AI costs you.</h2>
          <p className="cta__text">Pick a plan, connect your providers in minutes and see every token and every pound from the first request.</p>
          <Link to="/pricing" className="button button--light button--large">
            See plans and pricing
          </Link>
        </div>
      </section>

      <FaqSection faqs={faqs} />
    </main>
  );
}
