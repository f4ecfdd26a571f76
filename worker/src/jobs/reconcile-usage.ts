// reconcile-usage: compares the usage rollups of the last hours with the events they sum
// and rebuilds the days that differ (store's reconcileRollups). The meter keeps them in
// step in one statement, so a difference means something wrote around it: it is logged
// as a warning, with the cells that differed.
import { type Logger, type ReconcileUsageJob, reconcileRollups, type SqlStore } from '@spendgate/store';

const HOUR_MS = 3_600_000;

export function createReconcileUsageProcessor(deps: { sql: Pick<SqlStore, 'db'>; log: Logger }) {
  return async ({ lookBackHours }: ReconcileUsageJob): Promise<void> => {
    const now = Date.now();
    const window = { from: new Date(now - lookBackHours * HOUR_MS), to: new Date(now + HOUR_MS) };
    const differences = await reconcileRollups(deps.sql.db, window);
    if (differences.length === 0) {
      deps.log.info({ window }, 'reconcile-usage: rollups agree with the events');
      return;
    }
    const teams = [...new Set(differences.map((difference) => difference.teamId))];
    deps.log.warn({ window, cells: differences.length, teams, differences: differences.slice(0, 20) }, 'reconcile-usage: rebuilt rollups that differed from the events');
  };
}
