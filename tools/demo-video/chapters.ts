/**
 * What the demo video shows and says: the five items of the /demo page, in its order,
 * each a narration and the console screens walked through while it plays.
 */

export interface Chapter {
  title: string;
  sentences: string[];
  /**
   * What is shown, one after another, each scrolled through: a console path (`#id` scrolls to
   * that element instead), `group:` opens the first synthetic group, `click:<name>` presses
   * the button of that name on the screen shown.
   */
  screens: string[];
}

export const VIDEO_TITLE = 'Spendgate — a working session on controlling AI spend';

export const CHAPTERS: Chapter[] = [
  {
    title: 'Usage Visibility',
    sentences: [
      'This is the Spendgate console, with ninety days of a real Azure language-model workload recorded through the gateway.',
      'Every request is priced and attributed to its team, synthetic group, key and model before it is stored, exactly once.',
      'Spend over time, this month against last month, and where the money goes, by model, by key and by provider.',
      'Requests without a known price are flagged, never counted as zero, and every figure traces back to the request log.',
    ],
    screens: ['/dashboard'],
  },
  {
    title: 'Cost Control',
    sentences: [
      'Synthetic groups hold the keys each application calls with; the official SDKs work unchanged, only the base address and the key differ.',
      'Budgets on a key, a group or the whole team are checked before a request is sent.',
      'A hard cap refuses, a soft cap warns, and a downgrade budget moves work to a cheaper model of the same family.',
      'Alerts fire once at each threshold, by e-mail, Slack, Teams or text message.',
      "And each admin can have a weekly or monthly digest of the team's spend, with its budgets and the month's forecast.",
    ],
    screens: ['/dashboard/synthetic-groups', 'group:', '/dashboard/alerts'],
  },
  {
    title: 'Smart Optimisation',
    sentences: [
      "The AI advisor reads the team's own usage.",
      'Each tip shows its evidence, what the cheaper choice would have cost, and the saving per month, in pounds.',
      "One click applies it to the key's settings, and the saving actually realised is measured afterwards, beside the estimate.",
    ],
    screens: ['/dashboard/advisor', 'click:Generate tips'],
  },
  {
    title: 'Forecasting',
    sentences: [
      "Next month's bill is forecast from the team's daily spend, with eighty and ninety-five per cent ranges.",
      'The month-end projection is set against the budget, so an overrun shows before it happens.',
      'And the forecast shows its own track record: how close it came over the last eight weeks.',
    ],
    screens: ['/dashboard#forecast-title'],
  },
  {
    title: 'Governance',
    sentences: [
      'Team members hold roles, owners, admins and members, with group roles below them.',
      'Keys Spendgate issues, and the provider keys behind them, are encrypted at rest and never shown again.',
      'Every change to money, keys, roles and budgets is recorded, so finance and security can see who did what, and when.',
    ],
    screens: ['/dashboard/settings/team'],
  },
];
