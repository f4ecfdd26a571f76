// The watch-demo page (/demo): its own simple navbar and footer, the 16-minute overview.
import { Link } from '@tanstack/react-router';
import { useRef } from 'react';
import { PRODUCT_NAME } from '../../shared/config.ts';
import { Icon, type IconName } from '../../shared/ui/Icon.tsx';
import { Logo } from '../../shared/ui/Logo.tsx';
import { DemoVideo } from '../components/DemoVideo.tsx';
import { IconCard } from '../components/IconCard.tsx';
import { Copyright, FooterLinks } from '../layout/Footer.tsx';

const WHAT_YOU_WILL_SEE: { icon: IconName; title: string; text: string }[] = [
  { icon: 'eye', title: 'Usage Visibility', text: 'Tokens, prompts and cost per provider, model, team and key, as they happen.' },
  { icon: 'gauge', title: 'Cost Control', text: 'Budgets, caps and spend alerts that stop overruns before they reach the invoice.' },
  { icon: 'route', title: 'Smart Optimisation', text: 'Optimised keys and AI Advisor tips that move work to cheaper models safely.' },
  { icon: 'trend', title: 'Forecasting', text: "Next month's AI bill, forecast from your own usage with confidence ranges." },
  { icon: 'shield', title: 'Governance', text: 'Role-based access, audit-ready reporting and encrypted provider keys.' },
];

const AUDIENCES: { icon: IconName; title: string; text: string }[] = [
  {
    icon: 'building',
    title: 'CIOs and CTOs',
    text: 'Get one view of AI adoption and spend across the organisation, and the controls to scale it responsibly.',
  },
  {
    icon: 'card',
    title: 'Finance and FinOps teams',
    text: 'Attribute every pound to a team, product or customer, set budgets, and forecast the bill with confidence.',
  },
  {
    icon: 'settings',
    title: 'Platform and AI operations leads',
    text: 'Give engineering teams one gateway with keys, routing and limits — without slowing them down.',
  },
];

export function DemoPage() {
  const videoSection = useRef<HTMLElement>(null);
  const scrollToVideo = () => videoSection.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });

  return (
    <div className="demo">
      <header className="demo-navbar">
        <div className="demo-navbar__inner">
          <Link to="/" aria-label="Spendgate home">
            <Logo />
          </Link>
          <nav className="demo-navbar__links" aria-label="Demo">
            <Link to="/help-center" className="navbar__link">
              Help Centre
            </Link>
            <Link to="/pricing" className="navbar__link">
              Pricing Plans
            </Link>
            <Link to="/register" className="button button--primary button--small">
              Start Free Trial
            </Link>
          </nav>
        </div>
      </header>

      <main>
        <section className="hero hero--demo">
          <div className="hero__inner hero__inner--centered">
            <p className="eyebrow eyebrow--light">Watch the 16-minute overview</p>
            <h1 className="hero__title">Stop Guessing Your AI Costs. Start Controlling Them</h1>
            <p className="hero__lead">
              A working session on how {PRODUCT_NAME} would fit your organisation — not a sales pitch. See real usage, real costs and the
              controls that keep them in check.
            </p>
          </div>
        </section>

        <section className="demo-video-section" ref={videoSection} id="demo-video" aria-label="Demo video">
          <div className="demo-video-frame">
            <DemoVideo />
          </div>
        </section>

        <section className="section" aria-labelledby="see-heading">
          <div className="section__inner">
            <h2 id="see-heading" className="section__title section__title--center">
              What You'll See In 16 Minutes
            </h2>
            <div className="see-grid">
              {WHAT_YOU_WILL_SEE.map((item, index) => (
                <IconCard key={item.title} {...item} className="see-card">
                  <span className="see-card__step">{String(index + 1).padStart(2, '0')}</span>
                </IconCard>
              ))}
            </div>
          </div>
        </section>

        <section className="section section--tinted" aria-labelledby="cost-control-heading">
          <div className="section__inner split">
            <div>
              <p className="eyebrow">Cost control</p>
              <h2 id="cost-control-heading" className="section__title">
                One experiment can run up £50k. Make sure yours can't.
              </h2>
              <p className="section__lead">
                Enterprises lose 30-40% of their AI spend to waste, and 73% cannot see where it goes. {PRODUCT_NAME} meters every request
                before it is sent, so a budget is a limit — not a report you read a month later.
              </p>
            </div>
            <ul className="check-list">
              <li>
                <Icon name="check" size={20} /> Budgets per key, synthetic group and team, enforced on every request
              </li>
              <li>
                <Icon name="check" size={20} /> Alerts on thresholds, projected breaches and sudden spikes
              </li>
              <li>
                <Icon name="check" size={20} /> Every request priced from a versioned catalog and recorded exactly once
              </li>
              <li>
                <Icon name="check" size={20} /> Teams typically cut costs by up to 35% in their first month
              </li>
            </ul>
          </div>
        </section>

        <section className="section" aria-labelledby="approach-heading">
          <div className="section__inner approach">
            <p className="eyebrow">Our key approach</p>
            <h2 id="approach-heading" className="section__title section__title--center">
              Visibility first, then control, then optimisation
            </h2>
            <p className="section__lead section__lead--center">
              Start by seeing every token and every pound. Add budgets and alerts where the risk is. Then let optimised keys route each
              request to the model with the best trade-off of cost, speed and accuracy.
            </p>
            <button type="button" className="button button--primary button--large" onClick={scrollToVideo}>
              <Icon name="play" size={18} /> Watch Demo Video
            </button>
          </div>
        </section>

        <section className="section section--tinted" aria-labelledby="audience-heading">
          <div className="section__inner">
            <h2 id="audience-heading" className="section__title section__title--center">
              Who should watch
            </h2>
            <div className="audience-grid">
              {AUDIENCES.map((audience) => (
                <IconCard key={audience.title} {...audience} className="audience-card" />
              ))}
            </div>
          </div>
        </section>

        <section className="section">
          <div className="section__inner">
            <div className="trial-banner">
              <h2>Sign Up for a FREE TRIAL Today!</h2>
              <p>Every extra token you pay for is given-away profit. Take it back — the first 60 days are on us.</p>
              <Link to="/pricing" className="button button--light button--large">
                Get Started With {PRODUCT_NAME}
              </Link>
            </div>
          </div>
        </section>
      </main>

      <footer className="footer footer--demo">
        <div className="footer__inner">
          <Link to="/" aria-label="Spendgate home">
            <Logo inverted />
          </Link>
          <FooterLinks />
        </div>
        <div className="footer__bottom">
          <Copyright />
        </div>
      </footer>
    </div>
  );
}
