/**
 * The advisor's templated wording: a title and a sentence or two per finding, every
 * number taken from the finding itself (the detectors are the only source of figures).
 */
import { decimalToMicros, formatMoney, money } from '../money.ts';
import type { Finding } from './detectors.ts';

export interface Wording {
  title: string;
  text: string;
}

const gbp = (micros: bigint) => formatMoney(money(micros, 'GBP'));

/** The route of a wording call's usage event: the team's own usage, without a group or key. */
export const ADVISOR_WORDING_ROUTE = 'advisor-wording';

/**
 * @example describeFinding(finding).title // 'Use gpt-5-mini instead of gpt-4o'
 */
export function describeFinding(finding: Finding): Wording {
  const { facts, requests } = finding.evidence;
  const saving = `about ${gbp(finding.monthlySavingMicros)} a month`;
  const window = `${requests.toLocaleString('en-GB')} requests cost ${gbp(finding.currentCostMicros)}`;
  switch (finding.kind) {
    case 'cheaper-model':
      return {
        title: `Use ${facts.alternative} instead of ${facts.model}`,
        text: `${window} on ${facts.model}. ${facts.alternative} is in the same quality tier (accuracy ${facts.alternativeAccuracy} vs ${facts.accuracy}) and would have cost ${gbp(finding.counterfactualCostMicros)}: ${saving}.`,
      };
    case 'cheaper-provider':
      return {
        title: `Serve ${facts.model} through ${facts.alternativeProvider}`,
        text: `${window} through ${facts.provider}. Your ${facts.alternativeProvider} connection "${facts.alternativeConnection}" lists the same model for ${gbp(finding.counterfactualCostMicros)}: ${saving}.`,
      };
    case 'reasoning-heavy':
      return {
        title: `Reasoning is ${facts.reasoningSharePercent}% of ${facts.model}'s cost`,
        text: `${window}; ${Number(facts.reasoningTokens).toLocaleString('en-GB')} of ${Number(facts.outputTokens).toLocaleString('en-GB')} output tokens were reasoning. A lower reasoning effort that halves them would cost ${gbp(finding.counterfactualCostMicros)}: ${saving}.`,
      };
    case 'duplicate-requests':
      return {
        title: `Key ${facts.keyName} sends the same ${facts.model} requests again`,
        text: `${Number(facts.repeatedBodies).toLocaleString('en-GB')} request bodies were sent more than once: the ${requests.toLocaleString('en-GB')} repeats cost ${gbp(finding.currentCostMicros)}. Caching their answers would save ${saving}.`,
      };
    case 'oversized-output-limit':
      return {
        title: `Key ${facts.keyName} asks ${facts.model} for far more output than it gets`,
        text: `${window} asking for up to ${Number(facts.largestRequestedOutputTokens).toLocaleString('en-GB')} output tokens; the longest answer was ${Number(facts.largestOutputTokens).toLocaleString('en-GB')}. Each request reserves ${gbp(BigInt(facts.reservedOutputMicros!))} of output on its budgets (${gbp(BigInt(facts.reservedOutputAtCapMicros!))} at a limit of ${Number(facts.suggestedCap).toLocaleString('en-GB')}), so a hard budget refuses or caps requests sooner. Spend does not change.`,
      };
    case 'idle-key':
      return {
        title: `Key ${facts.keyName} has been idle ${facts.idleDays} days`,
        text:
          finding.monthlySavingMicros > 0n
            ? `No request in ${facts.idleDays} days. Revoking it ends its ${gbp(finding.monthlySavingMicros)} monthly fee beyond your plan's included keys.`
            : `No request in ${facts.idleDays} days. An unused live key is a secret that can leak: revoke it if nothing needs it.`,
      };
    case 'idle-connection':
      return {
        title: `Connection ${facts.connectionName} has been idle ${facts.idleDays} days`,
        text: `No request in ${facts.idleDays} days. Its provider key stays stored while the connection exists: delete it if nothing needs it.`,
      };
    case 'idle-gpu': {
      const minutes = (count: string | number | undefined) => `${Number(count).toLocaleString('en-GB')} minute${Number(count) === 1 ? '' : 's'}`;
      const held = Number(facts.heldMinutes) > 0 ? [`${minutes(facts.heldMinutes)} holding memory while idle${facts.processName === undefined ? '' : ` (${facts.processName}, pid ${facts.pid})`}`] : [];
      const idle = Number(facts.idleMinutes) > 0 ? [`${minutes(facts.idleMinutes)} idle with nothing allocated`] : [];
      return {
        title:
          facts.longestHeldMinutes === undefined
            ? `${facts.gpu} sat idle for ${minutes(facts.idleMinutes)}, ${gbp(finding.currentCostMicros)} wasted this week`
            : `${facts.gpu} held ${facts.heldMemory} at ${facts.heldUtilizationPct} % for ${minutes(facts.longestHeldMinutes)}, ${gbp(finding.currentCostMicros)} wasted this week`,
        text: `In the last ${facts.windowDays} days the ${facts.model} in cluster ${facts.cluster} spent ${[...held, ...idle].join(' and ')}: ${gbp(finding.currentCostMicros)} at ${gbp(decimalToMicros(String(facts.pricePerHour))!)} an hour, ${saving}.`,
      };
    }
  }
}

/** Every number written in a text (digits with their separators), e.g. '£2.745', '40', '1,000'. */
const numbersIn = (text: string) => new Set(text.match(/\d[\d,.]*\d|\d/g) ?? []);

/**
 * What a language model is asked when a team opts in to written wording: the templated
 * title and text to rephrase, keeping every figure.
 */
export function rewordingPrompt(template: Wording): { system: string; user: string } {
  return {
    system:
      'You rewrite cost-saving tips for engineers in plain, friendly British English. Keep every number, amount, model and key name exactly as given and add no other number. Answer in two lines: "TITLE: …" then "TEXT: …".',
    user: `TITLE: ${template.title}\nTEXT: ${template.text}`,
  };
}

/**
 * A model's rewording, accepted only if it has both lines and no number the template does
 * not have (the figures always come from the detectors); undefined otherwise, so the
 * template is kept.
 * @example acceptRewording({ title: 'Use x', text: 'Saves £2.50' }, 'TITLE: Try x\nTEXT: About £2.50 saved') // { title: 'Try x', text: 'About £2.50 saved' }
 * @example acceptRewording({ title: 'Use x', text: 'Saves £2.50' }, 'TITLE: Try x\nTEXT: About £25 saved') // undefined
 */
export function acceptRewording(template: Wording, answer: string): Wording | undefined {
  const title = /TITLE:\s*(.+)/.exec(answer)?.[1]?.trim();
  const text = /TEXT:\s*([\s\S]+)/.exec(answer)?.[1]?.trim();
  if (!title || !text || title.length > 200 || text.length > 1_000) return undefined;
  const allowed = numbersIn(`${template.title} ${template.text}`);
  for (const number of numbersIn(`${title} ${text}`)) if (!allowed.has(number)) return undefined;
  return { title, text };
}
