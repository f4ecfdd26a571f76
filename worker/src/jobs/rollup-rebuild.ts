// rollup-rebuild: after a team's time zone changed, regroups its daily rollups on the new
// zone's midnights (store's rebuildNextRollupDays), a few days per job, oldest first, then
// hands the next days to the queue, so other jobs take turns and a stop waits for one run
// at most. Progress is kept with the team's rebuild and logged; a run repeated after its
// commit moves on to the next days, so a retry or a restart does nothing twice.
import { type JobPayloads, type JobQueue, type Logger, rebuildNextRollupDays, type SqlStore, unfinishedRollupRebuilds } from '@spendgate/store';

/** The job id of a rebuild's next days: the same days handed over twice while pending run once. */
export const rollupRebuildJobId = (teamId: string, requestedAt: Date, daysRebuilt: number) => `rollup-rebuild-${teamId}-${requestedAt.getTime()}-${daysRebuilt}`;

export function createRollupRebuildProcessor(deps: { sql: Pick<SqlStore, 'db'>; queue: Pick<JobQueue<JobPayloads>, 'enqueue'>; log: Logger }) {
  return async ({ teamId }: { teamId: string }): Promise<void> => {
    const progress = await rebuildNextRollupDays(deps.sql.db, teamId);
    if (progress === undefined) return;
    deps.log.info({ teamId, timeZone: progress.timeZone, days: progress.days, daysRebuilt: progress.daysRebuilt }, 'rollup-rebuild: daily rollups regrouped on the time zone’s midnights');
    if (progress.rebuiltAt === null) {
      await deps.queue.enqueue('rollup-rebuild', { teamId }, { jobId: rollupRebuildJobId(teamId, progress.requestedAt, progress.daysRebuilt) });
    }
  };
}

/** The next days of every rebuild a restart left unfinished (the in-process queue keeps no job across one). */
export async function unfinishedRollupRebuildDays(deps: { sql: Pick<SqlStore, 'db'> }) {
  return (await unfinishedRollupRebuilds(deps.sql.db)).map((rebuild) => ({
    payload: { teamId: rebuild.team_id },
    jobId: rollupRebuildJobId(rebuild.team_id, new Date(rebuild.requested_at), rebuild.days_rebuilt),
  }));
}
