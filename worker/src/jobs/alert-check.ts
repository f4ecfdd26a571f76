// alert-check: compares every budget's spend in its current window (the recorded usage
// events, in the team's calendar) with its alert thresholds and records an alert for each
// threshold reached — once per (budget, window, threshold): the alert's unique dedupe key
// decides between checks that race, and a new window re-arms every threshold. Each new
// alert gets a delivery per channel the team's plan allows, sent by `alert-deliver`.
import { type BudgetSpend, budgetWindowAt, planTerms, type PlanSlug, thresholdAlertText, thresholdDedupeKey, thresholdsReached } from '@spendgate/core';
import {
  findTeamSubscription,
  firedThresholds,
  type JobPayloads,
  type JobQueue,
  listAlertChannels,
  listBudgetsWithAlerts,
  recordAlert,
  type SqlStore,
  sumBudgetSpend,
} from '@spendgate/store';

/** The channels of a team its plan lets alerts go to (e-mail on every plan; Slack, Teams, SMS on Enterprise). */
export async function deliverableChannels(db: SqlStore['db'], teamId: string) {
  const subscription = await findTeamSubscription(db, teamId);
  const allowed = planTerms((subscription?.plan_slug ?? 'free-trial') as PlanSlug).alertChannels;
  return (await listAlertChannels(db, teamId)).filter((channel) => allowed.includes(channel.kind));
}

/** Hands each delivery to its job; the job id is the delivery's, so a second hand-over while pending is ignored. */
export async function enqueueDeliveries(queue: Pick<JobQueue<JobPayloads>, 'enqueue'>, deliveryIds: readonly string[]): Promise<void> {
  for (const deliveryId of deliveryIds) await queue.enqueue('alert-deliver', { deliveryId }, { jobId: `alert-deliver-${deliveryId}` });
}

export function createAlertCheckProcessor(deps: { sql: Pick<SqlStore, 'db'>; queue: Pick<JobQueue<JobPayloads>, 'enqueue'>; now?: () => Date }) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  return async (): Promise<void> => {
    const at = now();
    for (const budget of await listBudgetsWithAlerts(db)) {
      const window = budgetWindowAt(budget.window, at, budget.time_zone);
      const spentMicros = await sumBudgetSpend(db, { teamId: budget.team_id, scope: budget.scope, scopeId: budget.scope_id, from: window.start, to: window.end });
      const spend: BudgetSpend = {
        budgetId: budget.id,
        scope: budget.scope,
        scopeName: budget.scope_name,
        window: budget.window,
        windowLabel: window.label,
        amountMicros: BigInt(budget.amount_micros),
        spentMicros,
        alertAt: budget.alert_at,
      };
      const reached = thresholdsReached(spend);
      if (reached.length === 0) continue;
      const fired = new Set(await firedThresholds(db, budget.id, window.label));
      const due = reached.filter((percent) => !fired.has(percent));
      if (due.length === 0) continue;
      const channels = await deliverableChannels(db, budget.team_id);
      for (const percent of due) {
        const text = thresholdAlertText(spend, percent);
        const recorded = await recordAlert(
          db,
          {
            team_id: budget.team_id,
            kind: 'threshold',
            dedupe_key: thresholdDedupeKey(budget.id, window.label, percent),
            budget_id: budget.id,
            threshold_percent: percent,
            window_label: window.label,
            subject: text.subject,
            message: text.text,
            details: { scope: budget.scope, scopeId: budget.scope_id, scopeName: budget.scope_name, mode: budget.mode, window: budget.window, amountMicros: spend.amountMicros.toString(), spentMicros: spend.spentMicros.toString() },
          },
          channels,
        );
        if (recorded) await enqueueDeliveries(deps.queue, recorded.deliveryIds);
      }
    }
  };
}
