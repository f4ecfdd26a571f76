/**
 * FAQ items that open and close on their own: several may be open at once. Used by
 * the landing page's FAQ section (first 4) and the help centre's accordion (all, the
 * first open).
 */
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import type { Faq } from '../../api/faqs/types.ts';
import { FAQ_SECTION_LIMIT, splitBulletAnswer } from './faq.ts';

function FaqAnswer({ answer }: { answer: string }) {
  const { intro, bullets } = splitBulletAnswer(answer);
  return (
    <>
      {intro && <p>{intro}</p>}
      {bullets.length > 0 && (
        <ul>
          {bullets.map((bullet) => (
            <li key={bullet}>{bullet}</li>
          ))}
        </ul>
      )}
    </>
  );
}

export function FaqList({ faqs, firstOpen = false }: { faqs: Faq[]; firstOpen?: boolean }) {
  const [openIds, setOpenIds] = useState<ReadonlySet<string>>(() => new Set(firstOpen && faqs[0] ? [faqs[0].id] : []));
  const toggle = (id: string) =>
    setOpenIds((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="faq-list">
      {faqs.map((faq) => {
        const open = openIds.has(faq.id);
        const panelId = `faq-answer-${faq.id}`;
        return (
          <div key={faq.id} className={open ? 'faq-item faq-item--open' : 'faq-item'} data-testid="faq-item">
            <h3 className="faq-item__heading">
              <button type="button" className="faq-item__question" aria-expanded={open} aria-controls={panelId} onClick={() => toggle(faq.id)}>
                <span>{faq.question}</span>
                <span className="faq-item__icon" aria-hidden="true" />
              </button>
            </h3>
            {open && (
              <div id={panelId} className="faq-item__answer">
                <FaqAnswer answer={faq.answer} />
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** The shared FAQ section: the first four FAQs, or 'No FAQs available.'. */
export function FaqSection({ faqs }: { faqs: Faq[] }) {
  return (
    <section className="section faq-section" aria-labelledby="faq-heading">
      <div className="section__inner section__inner--narrow">
        <p className="eyebrow">FAQ</p>
        <h2 id="faq-heading" className="section__title">
          Frequently Asked Questions
        </h2>
        {faqs.length === 0 ? <p className="faq-section__empty">No FAQs available.</p> : <FaqList faqs={faqs.slice(0, FAQ_SECTION_LIMIT)} />}
        {faqs.length > FAQ_SECTION_LIMIT && (
          <p className="faq-section__more">
            Still have questions?{' '}
            <Link to="/help-center" className="text-link">
              Shoot us an Email
            </Link>
          </p>
        )}
      </div>
    </section>
  );
}
