// GPU telemetry of a team: its clusters, the DCGM exporters scraped for them, the ingest
// keys agents push with, its GPUs, their raw samples (one per GPU and instant: a batch
// sent twice adds nothing) and the processes seen on them per minute; which GPUs have
// samples to roll up, and the rollup's reading and writing of classified minutes; the
// team's idle rules and GPU price table. Every call is scoped by team.
import { randomUUID } from 'node:crypto';
import { DEFAULT_IDLE_RULES, type GpuProcessSample, type GpuSample, type GpuSlot, type IdleRules } from '@spendgate/core';
import { type Insertable, sql } from 'kysely';
import type { GpuIngestKeysTable, GpuMinuteState } from '../schema.ts';
import type { Db } from './db.ts';

/** Rows per insert statement: well under PostgreSQL's 65,535 parameters. */
const CHUNK = 1_000;

const chunks = <T>(rows: readonly T[]) => Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK));

/** The id of the team's cluster by that name, made when it does not exist. */
export async function ensureGpuCluster(db: Db, teamId: string, name: string): Promise<string> {
  await db.insertInto('gpu_clusters').values({ id: randomUUID(), team_id: teamId, name }).onConflict((conflict) => conflict.columns(['team_id', 'name']).doNothing()).execute();
  const row = await db.selectFrom('gpu_clusters').select('id').where('team_id', '=', teamId).where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

export async function listGpuClusters(db: Db, teamId: string) {
  return db.selectFrom('gpu_clusters').select(['id', 'name', 'created_at']).where('team_id', '=', teamId).orderBy('name').execute();
}

// Ingest keys

export async function insertGpuIngestKey(db: Db, key: Insertable<GpuIngestKeysTable>) {
  return db.insertInto('gpu_ingest_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

export async function listGpuIngestKeys(db: Db, teamId: string) {
  return db.selectFrom('gpu_ingest_keys').selectAll().where('team_id', '=', teamId).where('revoked_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}

/** Revokes a live key of the team; answers its name and prefix, undefined when there was none. */
export async function revokeGpuIngestKey(db: Db, teamId: string, id: string, at: Date) {
  return db
    .updateTable('gpu_ingest_keys')
    .set({ revoked_at: at })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning(['name', 'key_prefix'])
    .executeTakeFirst();
}

/** The live ingest key with this hash (its team), marked used now; undefined when none. */
export async function useGpuIngestKey(db: Db, keyHash: string, at: Date) {
  return db
    .updateTable('gpu_ingest_keys')
    .set({ last_used_at: at })
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .returning(['id', 'team_id'])
    .executeTakeFirst();
}

// DCGM exporters

export async function insertGpuScrapeTarget(db: Db, target: { id: string; teamId: string; clusterId: string; url: string; createdBy: string }) {
  return db
    .insertInto('gpu_scrape_targets')
    .values({ id: target.id, team_id: target.teamId, cluster_id: target.clusterId, url: target.url, created_by: target.createdBy })
    .onConflict((conflict) => conflict.columns(['cluster_id', 'url']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

const targetColumns = ['t.id', 't.team_id', 't.cluster_id', 'c.name as cluster_name', 't.url', 't.created_at', 't.last_scraped_at', 't.last_error'] as const;

/** A team's exporters, or every team's (the scrape schedule). */
export async function listGpuScrapeTargets(db: Db, teamId?: string) {
  let query = db.selectFrom('gpu_scrape_targets as t').innerJoin('gpu_clusters as c', 'c.id', 't.cluster_id').select(targetColumns);
  if (teamId !== undefined) query = query.where('t.team_id', '=', teamId);
  return query.orderBy('c.name').orderBy('t.url').execute();
}

export async function findGpuScrapeTarget(db: Db, id: string) {
  return db.selectFrom('gpu_scrape_targets as t').innerJoin('gpu_clusters as c', 'c.id', 't.cluster_id').select(targetColumns).where('t.id', '=', id).executeTakeFirst();
}

export async function deleteGpuScrapeTarget(db: Db, teamId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('gpu_scrape_targets').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function recordGpuScrape(db: Db, id: string, at: Date, error: string | null): Promise<void> {
  await db.updateTable('gpu_scrape_targets').set({ last_scraped_at: at, last_error: error }).where('id', '=', id).execute();
}

// GPUs, samples and processes

/** Each GPU's id by UUID, made or updated (cluster, and model, host, index, memory when reported) from what a batch says of it. */
async function ensureGpuDevices(db: Db, teamId: string, clusterId: string, devices: readonly (Pick<GpuSample, 'gpuUuid' | 'at'> & Partial<GpuSample>)[]): Promise<Map<string, string>> {
  const latest = new Map<string, (typeof devices)[number] & { firstAt: number }>();
  for (const device of devices) {
    const known = latest.get(device.gpuUuid);
    if (!known || device.at >= known.at) latest.set(device.gpuUuid, { ...device, firstAt: Math.min(known?.firstAt ?? device.at, device.at) });
  }
  const ids = new Map<string, string>();
  for (const chunk of chunks([...latest.values()])) {
    const rows = await db
      .insertInto('gpu_devices')
      .values(
        chunk.map((device) => ({
          id: randomUUID(),
          team_id: teamId,
          cluster_id: clusterId,
          gpu_uuid: device.gpuUuid,
          model: device.model ?? null,
          host: device.host ?? null,
          device_index: device.index ?? null,
          memory_total_mib: device.memoryTotalMiB === undefined || device.memoryTotalMiB === null ? null : Math.round(device.memoryTotalMiB),
          first_seen_at: new Date(device.firstAt),
          last_seen_at: new Date(device.at),
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'gpu_uuid']).doUpdateSet({
          cluster_id: (eb) => eb.ref('excluded.cluster_id'),
          model: sql`coalesce(excluded.model, gpu_devices.model)`,
          host: sql`coalesce(excluded.host, gpu_devices.host)`,
          device_index: sql`coalesce(excluded.device_index, gpu_devices.device_index)`,
          memory_total_mib: sql`coalesce(excluded.memory_total_mib, gpu_devices.memory_total_mib)`,
          first_seen_at: sql`least(excluded.first_seen_at, gpu_devices.first_seen_at)`,
          last_seen_at: sql`greatest(excluded.last_seen_at, gpu_devices.last_seen_at)`,
        }),
      )
      .returning(['id', 'gpu_uuid'])
      .execute();
    for (const row of rows) ids.set(row.gpu_uuid, row.id);
  }
  return ids;
}

/** Marks GPUs as having samples from `from` on to roll up (the earliest such instant is kept). */
async function markGpuRollups(db: Db, teamId: string, changes: Map<string, number>, at: Date): Promise<void> {
  if (changes.size === 0) return;
  await db
    .insertInto('gpu_rollup_pending')
    .values([...changes].map(([gpuId, from]) => ({ gpu_id: gpuId, team_id: teamId, changed_from: new Date(from), marked_at: at })))
    .onConflict((conflict) =>
      conflict.column('gpu_id').doUpdateSet({ changed_from: sql`least(excluded.changed_from, gpu_rollup_pending.changed_from)`, marked_at: (eb) => eb.ref('excluded.marked_at') }),
    )
    .execute();
}

/**
 * Records a batch of a team's GPU samples in a cluster: the GPUs made or updated, each
 * sample stored once (one already stored is skipped), and the GPUs with new samples
 * marked for the rollup. How many GPUs the batch named and how many samples were new.
 */
export async function recordGpuSamples(db: Db, teamId: string, clusterId: string, samples: readonly GpuSample[], at: Date): Promise<{ gpus: number; newSamples: number }> {
  const ids = await ensureGpuDevices(db, teamId, clusterId, samples);
  const changes = new Map<string, number>();
  let newSamples = 0;
  for (const chunk of chunks(samples)) {
    const inserted = await db
      .insertInto('gpu_samples')
      .values(
        chunk.map((sample) => ({
          gpu_id: ids.get(sample.gpuUuid)!,
          at: new Date(sample.at),
          utilization_pct: sample.utilizationPct,
          memory_used_mib: sample.memoryUsedMiB === null ? null : Math.round(sample.memoryUsedMiB),
          power_w: sample.powerW,
        })),
      )
      .onConflict((conflict) => conflict.columns(['gpu_id', 'at']).doNothing())
      .returning(['gpu_id', 'at'])
      .execute();
    newSamples += inserted.length;
    for (const row of inserted) changes.set(row.gpu_id, Math.min(changes.get(row.gpu_id) ?? Number.POSITIVE_INFINITY, row.at.getTime()));
  }
  await markGpuRollups(db, teamId, changes, at);
  return { gpus: ids.size, newSamples };
}

const minuteOf = (at: number) => new Date(Math.floor(at / 60_000) * 60_000);

/** Records which processes held memory on which GPU in each minute (the most each held then); a GPU first seen here is made in the cluster. */
export async function recordGpuProcesses(db: Db, teamId: string, clusterId: string, host: string | null, processes: readonly GpuProcessSample[]): Promise<{ gpus: number; processes: number }> {
  const ids = await ensureGpuDevices(
    db,
    teamId,
    clusterId,
    processes.map((process) => ({ gpuUuid: process.gpuUuid, at: process.at, host })),
  );
  const minutes = new Map<string, { gpu_id: string; minute: Date; pid: number; process_name: string; used_memory_mib: number | null }>();
  for (const process of processes) {
    const row = { gpu_id: ids.get(process.gpuUuid)!, minute: minuteOf(process.at), pid: process.pid, process_name: process.processName, used_memory_mib: process.usedMemoryMiB === null ? null : Math.round(process.usedMemoryMiB) };
    const key = `${row.gpu_id}/${row.minute.getTime()}/${row.pid}`;
    const known = minutes.get(key);
    minutes.set(key, known && (known.used_memory_mib ?? -1) >= (row.used_memory_mib ?? -1) ? known : row);
  }
  for (const chunk of chunks([...minutes.values()])) {
    await db
      .insertInto('gpu_process_minutes')
      .values(chunk)
      .onConflict((conflict) =>
        conflict.columns(['gpu_id', 'minute', 'pid']).doUpdateSet({
          process_name: (eb) => eb.ref('excluded.process_name'),
          used_memory_mib: sql`greatest(excluded.used_memory_mib, gpu_process_minutes.used_memory_mib)`,
        }),
      )
      .execute();
  }
  return { gpus: ids.size, processes: new Set([...minutes.values()].map((row) => `${row.gpu_id}/${row.pid}`)).size };
}

// The rollup

/** The GPUs with samples to roll up (of one team, or all). */
export async function listPendingGpuRollups(db: Db, teamId?: string): Promise<string[]> {
  let query = db.selectFrom('gpu_rollup_pending').select('gpu_id');
  if (teamId !== undefined) query = query.where('team_id', '=', teamId);
  return (await query.orderBy('marked_at').execute()).map((row) => row.gpu_id);
}

/**
 * In a transaction: a GPU's pending rollup (its team and from when), locked until the
 * transaction ends, so a batch arriving meanwhile marks it again after, and another run
 * skips it; undefined when it is done or another run holds it.
 */
export async function lockPendingGpuRollup(trx: Db, gpuId: string) {
  return trx.selectFrom('gpu_rollup_pending').selectAll().where('gpu_id', '=', gpuId).forUpdate().skipLocked().executeTakeFirst();
}

/** A GPU's raw samples in [from, to), oldest first, as core reads them. */
export async function gpuSamplesBetween(db: Db, gpuId: string, from: Date, to: Date): Promise<GpuSample[]> {
  const rows = await db.selectFrom('gpu_samples').selectAll().where('gpu_id', '=', gpuId).where('at', '>=', from).where('at', '<', to).orderBy('at').execute();
  return rows.map((row) => ({
    at: row.at.getTime(),
    gpuUuid: gpuId,
    index: null,
    model: null,
    host: null,
    utilizationPct: row.utilization_pct,
    memoryUsedMiB: row.memory_used_mib,
    memoryTotalMiB: null,
    powerW: row.power_w,
  }));
}

/** The instant after a GPU's newest sample, or undefined when it has none. */
export async function gpuSamplesEnd(db: Db, gpuId: string): Promise<Date | undefined> {
  const row = await db.selectFrom('gpu_samples').select((eb) => eb.fn.max('at').as('last')).where('gpu_id', '=', gpuId).executeTakeFirst();
  return row?.last ? new Date(new Date(row.last).getTime() + 1) : undefined;
}

/** A GPU's stored minutes in [from, to) as core's slot readings. */
export async function gpuMinutesBetween(db: Db, gpuId: string, from: Date, to: Date) {
  const rows = await db.selectFrom('gpu_minutes').selectAll().where('gpu_id', '=', gpuId).where('minute', '>=', from).where('minute', '<', to).orderBy('minute').execute();
  return rows.map((row) => ({
    start: row.minute.getTime(),
    samples: row.samples,
    peakUtilizationPct: row.peak_utilization_pct,
    meanUtilizationPct: row.mean_utilization_pct,
    peakMemoryMiB: row.peak_memory_mib,
    meanPowerW: row.mean_power_w,
  }));
}

/** Writes a GPU's classified minutes (those with samples), replacing what was stored for them. */
export async function writeGpuMinutes(db: Db, teamId: string, gpuId: string, slots: readonly GpuSlot[]): Promise<void> {
  const rows = slots
    .filter((slot) => slot.state !== 'unreported')
    .map((slot) => ({
      gpu_id: gpuId,
      minute: new Date(slot.start),
      team_id: teamId,
      state: slot.state as GpuMinuteState,
      samples: slot.samples,
      peak_utilization_pct: slot.peakUtilizationPct,
      mean_utilization_pct: slot.meanUtilizationPct,
      peak_memory_mib: slot.peakMemoryMiB === null ? null : Math.round(slot.peakMemoryMiB),
      mean_power_w: slot.meanPowerW,
    }));
  for (const chunk of chunks(rows)) {
    await db
      .insertInto('gpu_minutes')
      .values(chunk)
      .onConflict((conflict) =>
        conflict.columns(['gpu_id', 'minute']).doUpdateSet({
          state: (eb) => eb.ref('excluded.state'),
          samples: (eb) => eb.ref('excluded.samples'),
          peak_utilization_pct: (eb) => eb.ref('excluded.peak_utilization_pct'),
          mean_utilization_pct: (eb) => eb.ref('excluded.mean_utilization_pct'),
          peak_memory_mib: (eb) => eb.ref('excluded.peak_memory_mib'),
          mean_power_w: (eb) => eb.ref('excluded.mean_power_w'),
        }),
      )
      .execute();
  }
}

/** Ends a GPU's pending rollup (its row is locked by lockPendingGpuRollup). */
export async function finishGpuRollup(db: Db, gpuId: string): Promise<void> {
  await db.deleteFrom('gpu_rollup_pending').where('gpu_id', '=', gpuId).execute();
}

// Idle rules and prices

export async function findGpuIdleRules(db: Db, teamId: string): Promise<IdleRules> {
  const row = await db.selectFrom('gpu_settings').selectAll().where('team_id', '=', teamId).executeTakeFirst();
  return row ? { ...DEFAULT_IDLE_RULES, idleBelowPct: row.idle_below_pct, idleAfterMinutes: row.idle_after_minutes } : DEFAULT_IDLE_RULES;
}

export async function upsertGpuIdleRules(db: Db, teamId: string, rules: { idleBelowPct: number; idleAfterMinutes: number }, userId: string): Promise<void> {
  await db
    .insertInto('gpu_settings')
    .values({ team_id: teamId, idle_below_pct: rules.idleBelowPct, idle_after_minutes: rules.idleAfterMinutes, updated_by: userId })
    .onConflict((conflict) =>
      conflict.column('team_id').doUpdateSet({ idle_below_pct: rules.idleBelowPct, idle_after_minutes: rules.idleAfterMinutes, updated_by: userId, updated_at: new Date() }),
    )
    .execute();
}

export async function listGpuPrices(db: Db, teamId: string) {
  return db.selectFrom('gpu_prices').select(['model', 'per_hour_micros', 'updated_at']).where('team_id', '=', teamId).orderBy('model').execute();
}

/** Replaces a team's GPU price table. */
export async function replaceGpuPrices(db: Db, teamId: string, prices: readonly { model: string; perHourMicros: bigint }[], userId: string): Promise<void> {
  await db.deleteFrom('gpu_prices').where('team_id', '=', teamId).execute();
  if (prices.length === 0) return;
  await db
    .insertInto('gpu_prices')
    .values(prices.map((price) => ({ team_id: teamId, model: price.model, per_hour_micros: price.perHourMicros, updated_by: userId })))
    .execute();
}
