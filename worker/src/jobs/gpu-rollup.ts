// gpu-rollup: turns each GPU's new raw samples into classified minutes (core's
// classifySlots with the team's idle rules). A GPU whose samples arrived from instant t on
// gets its minutes from t read again from the samples, and its states recomputed from a
// window before t (reclassificationSpan), so a stretch that began in an earlier batch
// turns idle from its first minute once it reaches the window. Each GPU is rolled up in a
// transaction holding its pending row: a batch arriving meanwhile marks it again, and a
// run never repeats another's work; running twice writes the same minutes.
import { classifySlots, type IdleRules, readGpuSlots, reclassificationSpan } from '@spendgate/core';
import {
  finishGpuRollup,
  findGpuIdleRules,
  type GpuRollupJob,
  gpuMinutesBetween,
  gpuSamplesBetween,
  gpuSamplesEnd,
  listPendingGpuRollups,
  lockPendingGpuRollup,
  type SqlStore,
  writeGpuMinutes,
} from '@spendgate/store';

const MINUTE_MS = 60_000;

export function createGpuRollupProcessor(deps: { sql: Pick<SqlStore, 'db'> }) {
  const { db } = deps.sql;
  return async ({ teamId }: GpuRollupJob): Promise<void> => {
    const rules = new Map<string, IdleRules>();
    for (const gpuId of await listPendingGpuRollups(db, teamId)) {
      await db.transaction().execute(async (trx) => {
        const pending = await lockPendingGpuRollup(trx, gpuId);
        if (!pending) return;
        const teamRules = rules.get(pending.team_id) ?? (await findGpuIdleRules(trx, pending.team_id));
        rules.set(pending.team_id, teamRules);
        const end = await gpuSamplesEnd(trx, gpuId);
        if (end) {
          const changedFrom = Math.floor(pending.changed_from.getTime() / MINUTE_MS) * MINUTE_MS;
          const to = Math.ceil(end.getTime() / MINUTE_MS) * MINUTE_MS;
          const span = reclassificationSpan(changedFrom, teamRules);
          const fresh = readGpuSlots(await gpuSamplesBetween(trx, gpuId, new Date(changedFrom), new Date(to)), { from: changedFrom, to });
          const stored = await gpuMinutesBetween(trx, gpuId, new Date(span.readFrom), new Date(changedFrom));
          const slots = classifySlots([...stored, ...fresh], { from: span.readFrom, to }, teamRules);
          await writeGpuMinutes(
            trx,
            pending.team_id,
            gpuId,
            slots.filter((slot) => slot.start >= span.writeFrom),
          );
        }
        await finishGpuRollup(trx, gpuId);
      });
    }
  };
}
