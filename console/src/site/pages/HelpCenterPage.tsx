// The help centre (/help-center): getting started, roles, billing, the FAQ accordion
// from the server, e-mail support and the free-trial link.
import { useSuspenseQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { faqListQuery } from '../../api/faqs/queries.ts';
import { PRODUCT_NAME, SUPPORT_EMAIL, supportMailto } from '../../shared/config.ts';
import { Icon, type IconName } from '../../shared/ui/Icon.tsx';
import { FaqList } from '../components/FaqList.tsx';
import { IconCard } from '../components/IconCard.tsx';
import { PROVIDERS } from '../components/marketing.ts';

const STEPS = [
  {
    title: 'Sign up and set up your team',
    text: 'Create your account, name your team and invite colleagues. Team admins manage members; everyone else joins as a member.',
  },
  {
    title: 'Connect your AI providers',
    text: 'Add the API keys you already have for OpenAI, Anthropic, Gemini and others. They are encrypted per team and never shown again.',
  },
  {
    title: 'Start using models',
    text: `Issue ${PRODUCT_NAME} keys to your apps and point their SDK's base URL at the gateway. Usage and cost appear within seconds.`,
  },
];

const AT_A_GLANCE: { icon: IconName; title: string; text: string }[] = [
  { icon: 'chart', title: 'Real-time usage', text: 'Requests, tokens and cost per provider and model as they happen.' },
  { icon: 'layers', title: 'Synthetic groups', text: 'Spend by team, product or customer, each with its own keys and budget.' },
  { icon: 'trend', title: 'Forecasts', text: "Next month's bill from your own trend, with a range you can plan around." },
  { icon: 'bulb', title: 'AI Advisor tips', text: 'Concrete suggestions: cheaper models, caching, prompt trimming.' },
  { icon: 'bell', title: 'Alerts', text: 'Budget thresholds and spikes, by e-mail or — on Enterprise — Slack, Teams and SMS.' },
  { icon: 'key', title: 'Key management', text: 'Issue, rotate and revoke keys; each one attributed to its group.' },
];

const ROLES = [
  { role: 'Admin', text: 'Full control of the group: add and remove users, update roles, edit or delete the group, and manage APIs.' },
  { role: 'Maintainer', text: 'Can edit the group and manage APIs, but cannot add, update or remove users.' },
  { role: 'Observer', text: 'View-only access to the group and its usage details.' },
];

export function HelpCenterPage() {
  const { data: faqs } = useSuspenseQuery(faqListQuery());
  return (
    <main className="help-center">
      <section className="hero hero--compact">
        <div className="hero__inner hero__inner--centered">
          <p className="eyebrow eyebrow--light">Help Centre</p>
          <h1 className="hero__title">Welcome to the {PRODUCT_NAME} Help Centre</h1>
          <p className="hero__lead">
            Everything you need to get your team from first sign-up to full control of its AI spend: setup guides, roles, billing and answers
            to the questions we hear most.
          </p>
        </div>
      </section>

      <section className="providers-strip" aria-labelledby="trusted-heading">
        <p id="trusted-heading">Trusted by teams using</p>
        <ul>
          {PROVIDERS.map((provider) => (
            <li key={provider}>{provider}</li>
          ))}
        </ul>
      </section>

      <section className="section" aria-labelledby="start-heading">
        <div className="section__inner">
          <p className="eyebrow">Getting started</p>
          <h2 id="start-heading" className="section__title">
            Up and running in three steps
          </h2>
          <ol className="steps">
            {STEPS.map((step, index) => (
              <li key={step.title} className="step">
                <span className="step__number">{index + 1}</span>
                <h3>{step.title}</h3>
                <p>{step.text}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section section--tinted" aria-labelledby="glance-heading">
        <div className="section__inner">
          <p className="eyebrow">Usage at a glance</p>
          <h2 id="glance-heading" className="section__title">
            What your dashboard shows
          </h2>
          <div className="feature-grid">
            {AT_A_GLANCE.map((feature) => (
              <IconCard key={feature.title} {...feature} />
            ))}
          </div>
        </div>
      </section>

      <section className="section" aria-label="Roles and billing">
        <div className="section__inner explainers">
          <article className="explainer" aria-labelledby="roles-heading">
            <h2 id="roles-heading">Access roles</h2>
            <p>Each synthetic group has its own members, and each member one of three roles:</p>
            <dl className="roles">
              {ROLES.map((item) => (
                <div key={item.role} className="roles__item">
                  <dt>{item.role}</dt>
                  <dd>{item.text}</dd>
                </div>
              ))}
            </dl>
            <p className="explainer__note">Teams have Admins, who manage members and billing, and Members. New invitations default to Member.</p>
          </article>
          <article className="explainer" aria-labelledby="billing-heading">
            <h2 id="billing-heading">Billing</h2>
            <ul className="check-list">
              <li>
                <Icon name="check" size={20} /> The first 60 days are free, with no credit card required.
              </li>
              <li>
                <Icon name="check" size={20} /> After the trial, billing is metered: a monthly plan fee plus what you use.
              </li>
              <li>
                <Icon name="check" size={20} /> Provider usage on your own keys is billed by your provider; {PRODUCT_NAME} adds only its plan
                fees.
              </li>
              <li>
                <Icon name="check" size={20} /> Change plan or cancel at any time from Settings → Subscription.
              </li>
            </ul>
            <Link to="/pricing" className="text-link">
              Compare plans and usage prices →
            </Link>
          </article>
        </div>
      </section>

      <section className="section section--tinted" aria-labelledby="help-faq-heading">
        <div className="section__inner section__inner--narrow">
          <p className="eyebrow">FAQ</p>
          <h2 id="help-faq-heading" className="section__title">
            Frequently Asked Questions
          </h2>
          {faqs.length === 0 ? <p className="faq-section__empty">No FAQs available.</p> : <FaqList faqs={faqs} firstOpen />}
        </div>
      </section>

      <section className="section">
        <div className="section__inner">
          <div className="support-band">
            <span className="support-band__icon">
              <Icon name="mail" size={28} />
            </span>
            <div>
              <h2>Still need help?</h2>
              <p>Our support team answers every e-mail, usually within one working day.</p>
            </div>
            <div className="support-band__actions">
              <a className="button button--primary" href={supportMailto()}>
                Email {SUPPORT_EMAIL}
              </a>
              <Link to="/pricing" className="button button--ghost">
                Start Your Free Trial
              </Link>
            </div>
          </div>
        </div>
      </section>
    </main>
  );
}
