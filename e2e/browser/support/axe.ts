/**
 * Accessibility checks in browser tests: axe-core run in a Playwright page against the
 * WCAG 2.1 A and AA rules. `blockingViolations` keeps what must be fixed (critical and
 * serious); `describeViolations` says where, for a failing assertion's message.
 *
 * @example
 *   const violations = blockingViolations(await axeViolations(page));
 *   expect(violations, describeViolations(violations)).toEqual([]);
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const WCAG_21_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary: string }[];
}

/** Runs axe-core on the whole page as it is now. Injected through the DevTools protocol, so the page's CSP does not stop it. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const { axe } = window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } };
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target, failureSummary }) => ({ target: target.map(String), failureSummary: failureSummary ?? '' })),
    }));
  }, WCAG_21_AA_TAGS);
}

export function blockingViolations(violations: AxeViolation[]): AxeViolation[] {
  return violations.filter((violation) => violation.impact === 'critical' || violation.impact === 'serious');
}

export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map((violation) => `${violation.impact} ${violation.id} (${violation.help}):\n${violation.nodes.map((node) => `  ${node.target.join(' ')}: ${node.failureSummary.replace(/\s+/g, ' ')}`).join('\n')}`)
    .join('\n');
}
