// demo-fill: records a demo team's sample usage in the background, one day per job, oldest
// first, at the pace of live traffic: the day's events go through the meter's own
// statement (so the rollups stay exact) in batches of DEMO_BATCH, each followed by a pause
// as long as it took, so the database spends at most half its time on the sample and a
// request beside it waits for one small batch at most (the embedded database runs one
// statement at a time). Then the day is counted on the fill and the next one handed to
// the queue, so other jobs take turns between days and a stop waits for one day at most;
// the last day asks for the team's first forecast. A day's events keep their request ids
// however often it is made, so a job run twice (a retry, a restart) records nothing twice,
// and a day is counted once, whole, once all its events are in.
import { setTimeout as sleep } from 'node:timers/promises';
import type { PriceCatalog } from '@spendgate/core';
import { findDemoFill, insertUsageEvents, type JobPayloads, type JobQueue, recordDemoDay, type SqlStore, unfinishedDemoFills } from '@spendgate/store';
import { sampleDay } from '../demo/sample.ts';
import { usageEventRow } from './meter.ts';

/** Events per statement: a fifth of a busy demo day. */
export const DEMO_BATCH = 200;

/** The job id of a team's day: a day handed over twice while pending is made once. */
export const demoFillJobId = (teamId: string, day: number) => `demo-fill-${teamId}-${day}`;

export function createDemoFillProcessor(deps: { sql: Pick<SqlStore, 'db'>; queue: Pick<JobQueue<JobPayloads>, 'enqueue'>; catalog: PriceCatalog; now?: () => Date }) {
  const { db } = deps.sql;
  return async ({ teamId }: { teamId: string }): Promise<void> => {
    const fill = await findDemoFill(db, teamId);
    if (fill === undefined || fill.days_filled >= fill.days) return;
    const day = fill.days_filled;
    const last = day + 1 === fill.days;
    const events = sampleDay({ teamId, groups: fill.groups, sampleEnd: fill.sample_end, days: fill.days, day, catalog: deps.catalog });
    for (let start = 0; start < events.length; start += DEMO_BATCH) {
      const started = performance.now();
      await insertUsageEvents(db, events.slice(start, start + DEMO_BATCH).map(usageEventRow));
      await sleep(performance.now() - started);
    }
    await recordDemoDay(db, { teamId, day, requests: events.length, filledAt: last ? (deps.now?.() ?? new Date()) : null });
    if (last) await deps.queue.enqueue('forecast', { teamId }, { jobId: `forecast-${teamId}-demo-filled` });
    else await deps.queue.enqueue('demo-fill', { teamId }, { jobId: demoFillJobId(teamId, day + 1) });
  };
}

/** The next day of every fill a restart left unfinished (the in-process queue keeps no job across one). */
export async function unfinishedDemoDays(deps: { sql: Pick<SqlStore, 'db'> }) {
  return (await unfinishedDemoFills(deps.sql.db)).map((fill) => ({ payload: { teamId: fill.team_id }, jobId: demoFillJobId(fill.team_id, fill.days_filled) }));
}
