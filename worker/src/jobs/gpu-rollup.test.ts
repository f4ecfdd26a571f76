// The GPU rollup on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set),
// on the real H200 capture slowed 60 times (each second of it a minute, so its phases span
// minute slots) with a 5-minute window: its phases come out as they happened whether the
// samples arrive at once or in batches with a rollup after each (a stretch reaching the
// window turns its earlier minutes idle), a batch sent twice changes nothing, and the
// idle stretches name the process that held the memory.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type GpuSample, parseNvidiaSmiComputeApps, parseNvidiaSmiGpus } from '@spendgate/core';
import {
  ensureGpuCluster,
  gpuHeldMinutesByProcess,
  gpuIdleStretches,
  insertTeam,
  insertUser,
  recordGpuProcesses,
  recordGpuSamples,
  upsertGpuIdleRules,
} from '@spendgate/store';
import { openTestSqlStore, sqlBackends, type TestSqlStore } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGpuRollupProcessor } from './gpu-rollup.ts';

const capture = (file: string) => readFileSync(new URL(`../../../core/src/gpu/h200-capture/${file}`, import.meta.url), 'utf8');
const MINUTE_MS = 60_000;
/** The capture's first whole minute: its second k becomes minute k after it. */
const T0 = Date.parse('2026-11-26T02:35:00Z');
const slowed = <T extends { at: number }>(sample: T): T => ({ ...sample, at: T0 + (sample.at - T0) * 60 });
const SAMPLES = parseNvidiaSmiGpus(capture('gpu-samples.csv'), 'gpu-node-1').samples.map(slowed);
const PROCESSES = parseNvidiaSmiComputeApps(capture('compute-apps.csv')).samples.map(slowed);

/** Minute k's state, by the capture's phases (README): idle to :26, busy :27–:43, 39 GB held at 0 % :44–:53, the exit's 13 % at :54, idle :55–:68. */
function expectedState(k: number): string {
  if (k >= 1 && k <= 26) return 'idle';
  if (k >= 27 && k <= 43) return 'active';
  if (k >= 44 && k <= 53) return 'idle-held';
  if (k === 54) return 'active';
  return 'idle';
}

describe.each(sqlBackends)('GPU rollup on %s', (backend) => {
  let sql: TestSqlStore;
  const rollup = () => createGpuRollupProcessor({ sql })({});

  beforeAll(async () => {
    sql = await openTestSqlStore(backend);
  });
  afterAll(() => sql?.close());

  async function team() {
    const [userId, teamId] = [randomUUID(), randomUUID()];
    await insertUser(sql.db, { id: userId, email: `${userId}@example.com`, name: 'Ada', passwordHash: 'x' });
    await insertTeam(sql.db, { id: teamId, name: 'Acme', description: '', createdBy: userId });
    await upsertGpuIdleRules(sql.db, teamId, { idleBelowPct: 5, idleAfterMinutes: 5 }, userId);
    const clusterId = await ensureGpuCluster(sql.db, teamId, 'training');
    const record = (samples: readonly GpuSample[]) => sql.db.transaction().execute((trx) => recordGpuSamples(trx, teamId, clusterId, samples, new Date()));
    const minutes = async () => {
      const rows = await sql.db.selectFrom('gpu_minutes').select(['minute', 'state']).where('team_id', '=', teamId).orderBy('minute').execute();
      return Object.fromEntries(rows.map((row) => [(row.minute.getTime() - T0) / MINUTE_MS, row.state]));
    };
    return { teamId, clusterId, record, minutes };
  }

  const expectedMinutes = Object.fromEntries(Array.from({ length: 68 }, (_, i) => [i + 1, expectedState(i + 1)]));

  it('classifies every minute of the capture by its phase, sent at once', async () => {
    const { record, minutes } = await team();
    expect(await record(SAMPLES)).toEqual({ gpus: 1, newSamples: 268 });
    await rollup();
    expect(await minutes()).toEqual(expectedMinutes);
    // Sent again: nothing new, and the minutes stay as they are.
    expect(await record(SAMPLES)).toEqual({ gpus: 1, newSamples: 0 });
    await rollup();
    expect(await minutes()).toEqual(expectedMinutes);
  });

  it('classifies the same when the capture arrives in batches, a held stretch turning idle once it reaches the window', async () => {
    const { record, minutes } = await team();
    const heldStart = T0 + 44 * MINUTE_MS;
    const seen = { pause: false, held: false };
    for (let first = 0; first < SAMPLES.length; first += 20) {
      await record(SAMPLES.slice(first, first + 20));
      await rollup();
      const last = SAMPLES[Math.min(first + 19, SAMPLES.length - 1)]!.at;
      const states = await minutes();
      // Under five minutes into the held stretch it is still a pause; from five on it is idle-held from its start.
      if (last >= heldStart + MINUTE_MS && last < heldStart + 4 * MINUTE_MS) {
        expect([states[44], states[45]]).toEqual(['active', 'active']);
        seen.pause = true;
      }
      if (last >= heldStart + 5 * MINUTE_MS && last < heldStart + 10 * MINUTE_MS) {
        expect([states[44], states[45]]).toEqual(['idle-held', 'idle-held']);
        seen.held = true;
      }
    }
    expect(seen).toEqual({ pause: true, held: true });
    expect(await minutes()).toEqual(expectedMinutes);
  });

  it('names the process that held the memory in each idle stretch, and counts its held minutes', async () => {
    const { teamId, clusterId, record } = await team();
    await record(SAMPLES);
    expect(await recordGpuProcesses(sql.db, teamId, clusterId, 'gpu-node-1', PROCESSES)).toEqual({ gpus: 1, processes: 1 });
    await rollup();
    const range = { teamId, from: new Date(T0), to: new Date(T0 + 2 * 3_600_000) };
    const stretches = await gpuIdleStretches(sql.db, { ...range, limit: 10 });
    expect(stretches.map(({ gpuId: _, ...stretch }) => stretch)).toEqual([
      { start: new Date(T0 + 55 * MINUTE_MS), end: new Date(T0 + 69 * MINUTE_MS), heldMinutes: 0, idleMinutes: 14, peakMemoryMiB: 0, peakUtilizationPct: 0, ongoing: true, process: null },
      { start: new Date(T0 + 44 * MINUTE_MS), end: new Date(T0 + 54 * MINUTE_MS), heldMinutes: 10, idleMinutes: 0, peakMemoryMiB: 39287, peakUtilizationPct: 0, ongoing: false, process: { pid: 607, name: 'python3', memoryMiB: 39278 } },
      { start: new Date(T0 + 1 * MINUTE_MS), end: new Date(T0 + 27 * MINUTE_MS), heldMinutes: 0, idleMinutes: 26, peakMemoryMiB: 0, peakUtilizationPct: 0, ongoing: false, process: null },
    ]);
    expect((await gpuHeldMinutesByProcess(sql.db, range)).map(({ gpuId: _, ...row }) => row)).toEqual([{ pid: 607, processName: 'python3', minutes: 10, peakMemoryMiB: 39278 }]);
  });
});
