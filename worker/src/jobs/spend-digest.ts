// spend-digest: every hour, for each team admin who asked for a weekly or monthly digest,
// whether the last whole period in the team's zone is due (from 08:00 local on the day after
// it ends); if it is, claims it (once per admin, team and period, however many workers run
// this) and, in the same transaction, stores the e-mail in the outbox: the period's spend and
// the period before's, requests, unpriced requests, and the top models and synthetic groups,
// all from the daily rollups the console's overview reads; each budget's spend in its window
// as the period closed; and the team's stored forecast of the month it is sent in (the
// forecast job's). The mail job sends it.
// spend-digest-preview: a team admin's "send me one now": the same e-mail for the last whole
// period, at once, marked as a sample and not counted as that period's digest.
import { budgetWindowAt, type DigestBudget, type DigestLine, type DigestPeriod, digestText, lastDigestPeriod, localDay } from '@spendgate/core';
import {
  claimSpendDigestSend,
  createMailer,
  findSpendDigestReader,
  type Db,
  groupNames,
  type JobHandler,
  type JobPayloads,
  type JobQueue,
  listSpendDigestReaders,
  listTeamBudgetsNamed,
  readForecast,
  type RollupSums,
  rollupDistribution,
  type SpendDigestReader,
  type SqlStore,
  sumBudgetSpend,
  sumRollups,
} from '@spendgate/store';

/** Models and groups listed in a digest. */
const TOP_LINES = 5;

const line = (name: string, sums: RollupSums): DigestLine => ({ name, spendMicros: sums.budgetSpendMicros, requests: sums.requests });

/** Each of the team's budgets with what its window had spent when the period closed (the window holding the period's last moment). */
async function budgetsAtClose(db: Db, teamId: string, period: DigestPeriod, timeZone: string): Promise<DigestBudget[]> {
  const budgets = await listTeamBudgetsNamed(db, teamId);
  return Promise.all(
    budgets.map(async (budget) => {
      const window = budgetWindowAt(budget.window, new Date(period.end.getTime() - 1), timeZone);
      const to = window.end === null || window.end > period.end ? period.end : window.end;
      const spentMicros = await sumBudgetSpend(db, { teamId, scope: budget.scope, scopeId: budget.scope_id, from: window.start, to });
      return { scope: budget.scope, scopeName: budget.scope_name, window: budget.window, amountMicros: BigInt(budget.amount_micros), spentMicros };
    }),
  );
}

/** The digest e-mail of the last whole period before `now`, for `reader`. */
async function digestFor(db: Db, reader: SpendDigestReader, now: Date, publicUrl: string) {
  const period = lastDigestPeriod(reader.frequency, now, reader.timeZone);
  const filter = { teamId: reader.teamId, from: period.start, to: period.end, grain: 'day' as const };
  const month = localDay(now, reader.timeZone).slice(0, 7);
  const [sums, previous, models, groups, forecast, budgets] = await Promise.all([
    sumRollups(db, filter),
    sumRollups(db, { ...filter, from: period.previous.start, to: period.previous.end }),
    rollupDistribution(db, filter, 'model'),
    rollupDistribution(db, filter, 'group'),
    readForecast(db, reader.teamId, month),
    budgetsAtClose(db, reader.teamId, period, reader.timeZone),
  ]);
  const topGroups = groups.filter((group) => group.value !== null).slice(0, TOP_LINES);
  const names = await groupNames(db, reader.teamId, topGroups.map((group) => group.value!));
  const dashboard = new URL('/dashboard', publicUrl);
  dashboard.search = new URLSearchParams({ team: reader.teamId, start: period.firstDay, end: period.lastDay }).toString();
  return digestText({
    teamName: reader.teamName,
    frequency: reader.frequency,
    period,
    spendMicros: sums.budgetSpendMicros,
    previousSpendMicros: previous.budgetSpendMicros,
    requests: sums.requests,
    unpricedRequests: sums.unpricedRequests,
    models: models.slice(0, TOP_LINES).map((model) => line(model.value ?? 'unknown', model.sums)),
    groups: topGroups.map((group) => line(names.get(group.value!) ?? 'a deleted group', group.sums)),
    budgets,
    forecast: forecast && { month, projectedMicros: forecast.projectedMicros, lower80Micros: forecast.lower80Micros, upper80Micros: forecast.upper80Micros },
    consoleUrl: dashboard.href,
  });
}

/** What both digest jobs use: the store, the queue their mail goes on, the console's address, a clock. */
interface SpendDigestDeps {
  sql: SqlStore;
  queue: Pick<JobQueue<JobPayloads>, 'enqueue'>;
  publicUrl: string;
  now?: () => Date;
}

const mailerAndClock = (deps: SpendDigestDeps) => ({
  mailer: createMailer({ sql: deps.sql, queue: deps.queue as JobQueue<JobPayloads> }),
  now: deps.now ?? (() => new Date()),
});

export function createSpendDigestProcessor(deps: SpendDigestDeps): JobHandler<JobPayloads['spend-digest']> {
  const { mailer, now } = mailerAndClock(deps);
  return async () => {
    const at = now();
    for (const reader of await listSpendDigestReaders(deps.sql.db)) {
      const period = lastDigestPeriod(reader.frequency, at, reader.timeZone);
      if (at < period.dueAt) continue;
      const dispatch = await deps.sql.db.transaction().execute(async (trx) => {
        const claim = { teamId: reader.teamId, userId: reader.userId, frequency: reader.frequency, periodStart: period.firstDay };
        if (!(await claimSpendDigestSend(trx, claim))) return undefined;
        const { subject, text } = await digestFor(trx, reader, at, deps.publicUrl);
        return mailer.store(trx, { to: reader.email, subject, text });
      });
      await dispatch?.();
    }
  };
}

export function createSpendDigestPreviewProcessor(deps: SpendDigestDeps): JobHandler<JobPayloads['spend-digest-preview']> {
  const { mailer, now } = mailerAndClock(deps);
  return async ({ teamId, userId, frequency }) => {
    // Whoever stopped being an admin since asking gets nothing.
    const reader = await findSpendDigestReader(deps.sql.db, teamId, userId, frequency);
    if (!reader) return;
    const { subject, text } = await digestFor(deps.sql.db, reader, now(), deps.publicUrl);
    await mailer.send({ to: reader.email, subject: `Sample: ${subject}`, text: `A sample you asked for in Alerts; the ${frequency} digest itself comes on its own.\n\n${text}` });
  };
}
