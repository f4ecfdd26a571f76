// What the GPU screen reads, from a team's classified minutes in [from, to): the fleet per
// UTC hour, each GPU per hour (the heat map), each model's power, the idle stretches
// (consecutive idle or idle-held minutes, with the process that held the most memory in
// them) and the idle minutes per GPU and per process (the top process of each idle-held
// minute), which the control plane prices with the team's table; and, for the alert check,
// the GPUs of every team whose newest minute holds memory while idle.
import { sql } from 'kysely';
import type { Db } from './db.ts';

interface Range {
  teamId: string;
  from: Date;
  to: Date;
}

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** The team's GPUs with their cluster's name (every GPU ever seen: a range without minutes still names them). */
export async function listGpuDevices(db: Db, teamId: string) {
  return db
    .selectFrom('gpu_devices as d')
    .innerJoin('gpu_clusters as c', 'c.id', 'd.cluster_id')
    .select(['d.id', 'd.gpu_uuid', 'd.model', 'd.host', 'd.device_index', 'd.memory_total_mib', 'd.last_seen_at', 'c.name as cluster_name'])
    .where('d.team_id', '=', teamId)
    .orderBy('c.name')
    .orderBy('d.host')
    .orderBy('d.device_index')
    .orderBy('d.gpu_uuid')
    .execute();
}

/** Per UTC hour: GPUs reporting, their mean utilisation, and minutes in each state. */
export async function gpuFleetHours(db: Db, range: Range) {
  const { rows } = await sql<{ hour: Date; gpus: string; mean_utilization_pct: number | null; active: string; idle_held: string; idle: string }>`
    select date_trunc('hour', minute, 'UTC') as hour, count(distinct gpu_id) as gpus, avg(mean_utilization_pct) as mean_utilization_pct,
      count(*) filter (where state = 'active') as active, count(*) filter (where state = 'idle-held') as idle_held, count(*) filter (where state = 'idle') as idle
    from gpu_minutes where team_id = ${range.teamId} and minute >= ${range.from} and minute < ${range.to}
    group by 1 order by 1`.execute(db);
  return rows.map((row) => ({
    hour: new Date(row.hour),
    gpus: Number(row.gpus),
    meanUtilizationPct: num(row.mean_utilization_pct),
    activeMinutes: Number(row.active),
    idleHeldMinutes: Number(row.idle_held),
    idleMinutes: Number(row.idle),
  }));
}

/** Per GPU and UTC hour: mean utilisation, minutes reported and minutes idle (held or not). */
export async function gpuHourCells(db: Db, range: Range) {
  const { rows } = await sql<{ gpu_id: string; hour: Date; mean_utilization_pct: number | null; minutes: string; idle: string }>`
    select gpu_id, date_trunc('hour', minute, 'UTC') as hour, avg(mean_utilization_pct) as mean_utilization_pct, count(*) as minutes,
      count(*) filter (where state <> 'active') as idle
    from gpu_minutes where team_id = ${range.teamId} and minute >= ${range.from} and minute < ${range.to}
    group by 1, 2 order by 1, 2`.execute(db);
  return rows.map((row) => ({ gpuId: row.gpu_id, hour: new Date(row.hour), meanUtilizationPct: num(row.mean_utilization_pct), minutes: Number(row.minutes), idleMinutes: Number(row.idle) }));
}

/** Per GPU model and UTC hour: GPUs reporting and their mean draw; per model, the energy (minutes' mean watts, each a minute). */
export async function gpuPowerHours(db: Db, range: Range) {
  const { rows } = await sql<{ model: string | null; hour: Date; gpus: string; mean_power_w: number | null; watt_minutes: number | null }>`
    select d.model, date_trunc('hour', m.minute, 'UTC') as hour, count(distinct m.gpu_id) as gpus, avg(m.mean_power_w) as mean_power_w, sum(m.mean_power_w) as watt_minutes
    from gpu_minutes m join gpu_devices d on d.id = m.gpu_id
    where m.team_id = ${range.teamId} and m.minute >= ${range.from} and m.minute < ${range.to}
    group by 1, 2 order by 1, 2`.execute(db);
  return rows.map((row) => ({ model: row.model, hour: new Date(row.hour), gpus: Number(row.gpus), meanPowerW: num(row.mean_power_w), wattMinutes: num(row.watt_minutes) ?? 0 }));
}

/**
 * The idle stretches that overlap [from, to) (cut to it), newest first, at most `limit`:
 * each GPU's consecutive idle or idle-held minutes, how many of each, the most memory
 * held, the highest utilisation, whether the GPU's newest minute is in it (still idle), and the process that held
 * the most memory in it, if nvidia-smi reported one.
 */
export async function gpuIdleStretches(db: Db, range: Range & { limit: number }) {
  const { rows } = await sql<{
    gpu_id: string;
    start: Date;
    end: Date;
    held: string;
    idle: string;
    peak_memory_mib: number | null;
    peak_utilization_pct: number | null;
    ongoing: boolean;
    pid: number | null;
    process_name: string | null;
    process_memory_mib: number | null;
  }>`
    with idle as (
      select gpu_id, minute, state, peak_memory_mib, peak_utilization_pct,
        minute - (row_number() over (partition by gpu_id order by minute)) * interval '1 minute' as island
      from gpu_minutes
      where team_id = ${range.teamId} and minute >= ${range.from} and minute < ${range.to} and state <> 'active'
    ), stretches as (
      select gpu_id, min(minute) as start, max(minute) + interval '1 minute' as "end",
        count(*) filter (where state = 'idle-held') as held, count(*) filter (where state = 'idle') as idle, max(peak_memory_mib) as peak_memory_mib,
        max(peak_utilization_pct) as peak_utilization_pct
      from idle group by gpu_id, island
    )
    select s.*, s."end" > (select max(minute) from gpu_minutes m where m.gpu_id = s.gpu_id) as ongoing,
      p.pid, p.process_name, p.used_memory_mib as process_memory_mib
    from stretches s
    left join lateral (
      select pid, process_name, used_memory_mib from gpu_process_minutes p
      where p.gpu_id = s.gpu_id and p.minute >= s.start and p.minute < s."end"
      order by used_memory_mib desc nulls last, minute, pid limit 1
    ) p on true
    order by s.start desc, s.gpu_id limit ${range.limit}`.execute(db);
  return rows.map((row) => ({
    gpuId: row.gpu_id,
    start: new Date(row.start),
    end: new Date(row.end),
    heldMinutes: Number(row.held),
    idleMinutes: Number(row.idle),
    peakMemoryMiB: num(row.peak_memory_mib),
    peakUtilizationPct: num(row.peak_utilization_pct),
    ongoing: row.ongoing,
    process: row.pid === null ? null : { pid: row.pid, name: row.process_name!, memoryMiB: num(row.process_memory_mib) },
  }));
}

/** Per GPU: its minutes idle-held and idle in the range (GPUs with any). */
export async function gpuIdleMinutes(db: Db, range: Range) {
  const { rows } = await sql<{ gpu_id: string; held: string; idle: string }>`
    select gpu_id, count(*) filter (where state = 'idle-held') as held, count(*) filter (where state = 'idle') as idle
    from gpu_minutes where team_id = ${range.teamId} and minute >= ${range.from} and minute < ${range.to} and state <> 'active'
    group by gpu_id order by gpu_id`.execute(db);
  return rows.map((row) => ({ gpuId: row.gpu_id, heldMinutes: Number(row.held), idleMinutes: Number(row.idle) }));
}

/** Idle-held minutes per GPU and the process holding the most memory in each (pid null: none reported). */
export async function gpuHeldMinutesByProcess(db: Db, range: Range) {
  const { rows } = await sql<{ gpu_id: string; pid: number | null; process_name: string | null; minutes: string; peak_memory_mib: number | null }>`
    select m.gpu_id, p.pid, p.process_name, count(*) as minutes, max(p.used_memory_mib) as peak_memory_mib
    from gpu_minutes m
    left join lateral (
      select pid, process_name, used_memory_mib from gpu_process_minutes p
      where p.gpu_id = m.gpu_id and p.minute = m.minute order by used_memory_mib desc nulls last, pid limit 1
    ) p on true
    where m.team_id = ${range.teamId} and m.minute >= ${range.from} and m.minute < ${range.to} and m.state = 'idle-held'
    group by m.gpu_id, p.pid, p.process_name order by m.gpu_id, p.pid`.execute(db);
  return rows.map((row) => ({ gpuId: row.gpu_id, pid: row.pid, processName: row.process_name, minutes: Number(row.minutes), peakMemoryMiB: num(row.peak_memory_mib) }));
}

/** Every team's GPUs whose newest minute is idle-held and at or after `since`, with what names them. */
export async function listGpusHeldIdle(db: Db, since: Date) {
  const { rows } = await sql<{ gpu_id: string; team_id: string; gpu_uuid: string; model: string | null; host: string | null; device_index: number | null; cluster_name: string; minute: Date }>`
    select d.id as gpu_id, d.team_id, d.gpu_uuid, d.model, d.host, d.device_index, c.name as cluster_name, newest.minute
    from gpu_devices d
    join gpu_clusters c on c.id = d.cluster_id
    join lateral (select minute, state from gpu_minutes m where m.gpu_id = d.id order by minute desc limit 1) newest on true
    where newest.state = 'idle-held' and newest.minute >= ${since}
    order by d.team_id, d.id`.execute(db);
  return rows.map((row) => ({ ...row, minute: new Date(row.minute) }));
}

/** A GPU's classified minutes from `from` on, oldest first. */
export async function gpuStatesSince(db: Db, gpuId: string, from: Date) {
  const rows = await db
    .selectFrom('gpu_minutes')
    .select(['minute', 'state', 'peak_memory_mib', 'peak_utilization_pct'])
    .where('gpu_id', '=', gpuId)
    .where('minute', '>=', from)
    .orderBy('minute')
    .execute();
  return rows.map((row) => ({ start: row.minute.getTime(), state: row.state, peakMemoryMiB: row.peak_memory_mib, peakUtilizationPct: row.peak_utilization_pct }));
}
