/**
 * Spend alerts as data: which of a budget's alert thresholds its spend has reached, the
 * key that makes each alert fire once per threshold and window, the text people read, and
 * the message each channel's wire format takes (Slack Block Kit, a Teams Adaptive Card in
 * the Workflows envelope, an SMS body). Pure: the worker sends, the store remembers.
 */
import { formatMoney, money } from '../money.ts';
import type { AlertChannel } from '../plans.ts';

export const ALERT_CHANNEL_KINDS = ['email', 'slack', 'teams', 'sms'] as const satisfies readonly AlertChannel[];
/** threshold: a budget's alertAt; breach and spike: from the stored forecast (forecast-rules.ts), or an hour's band for a spike (hourly-spikes.ts); gpu-idle: a GPU holding memory while idle (gpu-idle.ts); test: "Send test". */
export type AlertKind = 'threshold' | 'breach' | 'spike' | 'gpu-idle' | 'test';

export * from './forecast-rules.ts';
export * from './gpu-idle.ts';
export * from './hourly-spikes.ts';

/** A budget's state as the alert check sees it: amounts in GBP micros, thresholds in percent. */
export interface BudgetSpend {
  budgetId: string;
  scope: 'key' | 'group' | 'team';
  /** The key's, group's or team's name, for people. */
  scopeName: string;
  window: 'day' | 'week' | 'month' | 'total';
  /** The window's label (its first local day, or 'total'): a new window re-arms every threshold. */
  windowLabel: string;
  amountMicros: bigint;
  spentMicros: bigint;
  alertAt: readonly number[];
}

/** The thresholds (percent of the amount) the spend has reached, lowest first, each once. */
export function thresholdsReached(budget: Pick<BudgetSpend, 'amountMicros' | 'spentMicros' | 'alertAt'>): number[] {
  const reached = budget.alertAt.filter((percent) => budget.spentMicros * 100n >= budget.amountMicros * BigInt(percent));
  return [...new Set(reached)].sort((a, b) => a - b);
}

/** One alert per (budget, window, threshold): the store keeps this key unique per team. */
export const thresholdDedupeKey = (budgetId: string, windowLabel: string, percent: number) => `threshold:${budgetId}:${windowLabel}:${percent}`;

/** What an alert says: a subject line and one plain sentence or two. */
export interface AlertText {
  subject: string;
  text: string;
}

export const WINDOW_WORDS: Record<BudgetSpend['window'], string> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' };
const SCOPE_WORDS: Record<BudgetSpend['scope'], string> = { key: 'key', group: 'group', team: 'team' };

/** Whole percent of the amount spent, rounded down (82.9 % reads 82 %). */
export const percentSpent = (spent: bigint, amount: bigint) => (amount === 0n ? 0n : (spent * 100n) / amount);

/**
 * @example thresholdAlertText({ scope: "group", scopeName: "Research", window: "month", amountMicros: 2_000_000_000n, spentMicros: 1_640_000_000n, … }, 80)
 *   // { subject: "Research has spent 82% of its £2000.00 monthly budget", text: "Budget alert: the group Research has spent £1640.00 …" }
 */
export function thresholdAlertText(budget: BudgetSpend, percent: number): AlertText {
  const amount = formatMoney(money(budget.amountMicros, 'GBP'));
  const spent = formatMoney(money(budget.spentMicros, 'GBP'));
  const share = percentSpent(budget.spentMicros, budget.amountMicros);
  const what = `the ${SCOPE_WORDS[budget.scope]} ${budget.scopeName}`;
  const window = budget.window === 'total' ? 'total' : `${WINDOW_WORDS[budget.window]} (window from ${budget.windowLabel})`;
  return {
    subject: `${budget.scopeName} has spent ${share}% of its ${amount} ${WINDOW_WORDS[budget.window]} budget`,
    text: `Budget alert: ${what} has spent ${spent} of its ${amount} ${window} budget (${share}%), reaching the ${percent}% alert.`,
  };
}

/** The test message a channel is sent when someone presses "Send test". */
export function testAlertText(channelName: string): AlertText {
  return { subject: 'Spendgate test alert', text: `This is a test alert from Spendgate to the channel "${channelName}". Budget alerts will arrive here.` };
}

/** A Slack incoming-webhook body: `text` is the notification fallback, `blocks` what the channel shows. */
export function slackMessage(alert: AlertText) {
  return {
    text: `${alert.subject}: ${alert.text}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: alert.subject.slice(0, 150), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: alert.text.slice(0, 3000) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Sent by Spendgate' }] },
    ],
  };
}

/** A Teams Workflows webhook body: one Adaptive Card in the message's attachments. */
export function teamsMessage(alert: AlertText) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: alert.subject, weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'TextBlock', text: alert.text, wrap: true },
          ],
        },
      },
    ],
  };
}

/** An SMS: the sentence alone, at most 320 characters (two segments). */
export function smsBody(alert: AlertText): string {
  const body = `Spendgate: ${alert.text}`;
  return body.length <= 320 ? body : `${body.slice(0, 319)}…`;
}

/** E.164: a plus, then 8 to 15 digits, the first not 0. */
export const isE164 = (number: string) => /^\+[1-9]\d{7,14}$/.test(number);
