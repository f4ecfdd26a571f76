// The about page (/about): the early-access modal with the contact form, open on
// load; the journey story; the five keys to our approach; sign up.
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { PRODUCT_NAME } from '../../shared/config.ts';
import { ContactForm } from '../components/ContactForm.tsx';
import { IconCard, type IconCardContent } from '../components/IconCard.tsx';
import { Modal } from '../components/Modal.tsx';

const APPROACH: IconCardContent[] = [
  { icon: 'models', title: 'Multi-model by default', text: 'No lock-in: every major provider and your own models behind one endpoint.' },
  {
    icon: 'shield',
    title: 'Enterprise-ready',
    text: 'Single sign-on, role-based access controls, audit trails and compliance tooling from day one.',
  },
  { icon: 'layers', title: 'Synthetic groups', text: 'Usage grouped the way your business thinks: by team, product or customer.' },
  { icon: 'scale', title: 'Cost, speed and accuracy', text: 'Every routing decision is an explicit trade-off you control, not a black box.' },
  { icon: 'dna', title: 'Cultural DNA', text: 'We build for the people who pay the bill and the people who ship the product.' },
];

export function AboutPage() {
  const [formOpen, setFormOpen] = useState(true);
  return (
    <main className="about">
      {formOpen && (
        <Modal
          title="Get Early Access!"
          subtitle={`Tell us about your team and we'll be in touch about ${PRODUCT_NAME} early access.`}
          onClose={() => setFormOpen(false)}
        >
          <ContactForm />
        </Modal>
      )}

      <section className="hero hero--compact">
        <div className="hero__inner hero__inner--centered">
          <p className="eyebrow eyebrow--light">About {PRODUCT_NAME}</p>
          <h1 className="hero__title">We make AI spend something you decide, not something that happens to you.</h1>
          <div className="hero__actions hero__actions--center">
            <Link to="/register" className="button button--primary button--large">
              Start today
            </Link>
            <button type="button" className="button button--light button--large" onClick={() => setFormOpen(true)}>
              Get early access
            </button>
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="journey-heading">
        <div className="section__inner split">
          <div>
            <p className="eyebrow">Our Journey</p>
            <h2 id="journey-heading" className="section__title">
              From a £50k surprise to a product
            </h2>
          </div>
          <div className="story">
            <p>
              {PRODUCT_NAME} started with an invoice. A single team experiment — a batch job left looping over a large model — ran up close to
              £50k before anyone noticed. Nobody had done anything wrong; there was simply no place where usage, cost and limits met.
            </p>
            <p>
              Talking to other engineering and finance leaders, we heard the same story again and again. Teams were adopting several AI
              providers at once, each with its own console and invoice, and most could not say which product or customer a pound of spend
              belonged to.
            </p>
            <p>
              So we built the gateway we wanted: one endpoint that every SDK already speaks, that prices each request before it is sent,
              attributes it to a team and a group, and enforces the budget in the same step. On top of it came forecasting, alerts and an AI
              advisor that turns usage patterns into savings.
            </p>
          </div>
        </div>
      </section>

      <section className="section section--tinted" aria-labelledby="approach-heading">
        <div className="section__inner">
          <h2 id="approach-heading" className="section__title section__title--center">
            Key to our approach
          </h2>
          <div className="approach-grid">
            {APPROACH.map((item) => (
              <IconCard key={item.title} {...item} />
            ))}
          </div>
        </div>
      </section>

      <section className="section cta-section">
        <div className="section__inner cta">
          <p className="cta__label">Start today</p>
          <h2 className="cta__title">Your first 60 days are free.</h2>
          <p className="cta__text">No credit card, no sales call. Connect a provider and see your spend in minutes.</p>
          <Link to="/register" className="button button--light button--large">
            Sign Up Today
          </Link>
        </div>
      </section>
    </main>
  );
}
