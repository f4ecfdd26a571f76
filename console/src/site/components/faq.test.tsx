// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Faq } from '../../api/faqs/types.ts';
import { renderInSite } from '../../testing/render.tsx';
import { FaqList, FaqSection } from './FaqList.tsx';
import { splitBulletAnswer } from './faq.ts';

const faqs: Faq[] = Array.from({ length: 6 }, (_, index) => ({
  id: `faq-${index + 1}`,
  question: `Question ${index + 1}?`,
  answer: `Answer ${index + 1}.`,
}));

const questionButton = (name: string) => screen.getByRole('button', { name });

afterEach(cleanup);

describe('splitBulletAnswer', () => {
  it('turns an answer with bullet characters into an intro and a list', () => {
    expect(splitBulletAnswer('You can connect:\n• OpenAI\n• Anthropic and Gemini\n• Your own models')).toEqual({
      intro: 'You can connect:',
      bullets: ['OpenAI', 'Anthropic and Gemini', 'Your own models'],
    });
  });

  it('keeps an answer without bullets as it is', () => {
    expect(splitBulletAnswer('  No. Official SDKs work unchanged. ')).toEqual({ intro: 'No. Official SDKs work unchanged.', bullets: [] });
  });
});

describe('FaqList (help centre accordion)', () => {
  it('opens the first item, lets several be open at once and toggles each', async () => {
    const user = userEvent.setup();
    await renderInSite(<FaqList faqs={faqs.slice(0, 3)} firstOpen />);

    expect(questionButton('Question 1?').getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('Answer 1.')).toBeTruthy();
    expect(screen.queryByText('Answer 2.')).toBeNull();

    await user.click(questionButton('Question 2?'));
    expect(screen.getByText('Answer 1.')).toBeTruthy();
    expect(screen.getByText('Answer 2.')).toBeTruthy();

    await user.click(questionButton('Question 1?'));
    expect(screen.queryByText('Answer 1.')).toBeNull();
    expect(questionButton('Question 1?').getAttribute('aria-expanded')).toBe('false');
    expect(screen.getByText('Answer 2.')).toBeTruthy();
  });

  it('shows a bulleted answer as an intro line and a list', async () => {
    await renderInSite(<FaqList faqs={[{ id: 'b', question: 'Roles?', answer: 'Three roles: • Admin • Maintainer • Observer' }]} firstOpen />);
    expect(screen.getByText('Three roles:').tagName).toBe('P');
    expect(screen.getAllByRole('listitem').map((item) => item.textContent)).toEqual(['Admin', 'Maintainer', 'Observer']);
  });
});

describe('FaqSection (landing)', () => {
  it('shows the first four, closed, and links to the help centre when there are more', async () => {
    await renderInSite(<FaqSection faqs={faqs} />);
    expect(screen.getAllByTestId('faq-item')).toHaveLength(4);
    expect(screen.queryByText('Question 5?')).toBeNull();
    expect(questionButton('Question 1?').getAttribute('aria-expanded')).toBe('false');
    expect(screen.getByRole('link', { name: 'Shoot us an Email' }).getAttribute('href')).toBe('/help-center');
  });

  it('has no e-mail link with four or fewer', async () => {
    await renderInSite(<FaqSection faqs={faqs.slice(0, 4)} />);
    expect(screen.queryByRole('link', { name: 'Shoot us an Email' })).toBeNull();
  });

  it("says 'No FAQs available.' when there are none", async () => {
    await renderInSite(<FaqSection faqs={[]} />);
    expect(screen.getByText('No FAQs available.')).toBeTruthy();
    expect(screen.queryAllByTestId('faq-item')).toHaveLength(0);
  });
});
