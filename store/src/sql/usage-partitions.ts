// Partition upkeep for usage_events (range-partitioned by month on occurred_at, with a
// DEFAULT partition for anything outside the months that exist), partman-style in our own
// code: each month gets its partition ahead of time (start-up makes last month's to three
// months ahead, the usage-partitions job keeps it so), a month whose rows landed in DEFAULT
// (a back-fill, a demo history) gets its own partition with those rows moved into it, and a
// month wholly past the deployment's retention is dropped whole — no team keeps events
// longer (a team's own retention is only ever shorter; prune deletes those rows one by
// one). Every creation holds one advisory lock, so processes starting together and the job
// never race on a month.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

const DAY_MS = 86_400_000;
/** Months of partitions made ahead of the current one. */
export const USAGE_PARTITION_MONTHS_AHEAD = 3;
/**
 * How long after its claim a request id can still come back: the meter retries a batch
 * within minutes, and nothing replays usage older than reconcile-usage's 48-hour look-back;
 * two days is the margin on top of the retention below which the event itself is gone.
 */
export const REQUEST_ID_REPLAY_DAYS = 2;
/** Dropping a partition waits this long for readers of usage_events, then leaves it to the next run. */
const DROP_LOCK_TIMEOUT = '5s';
const LOCK_KEY = sql`hashtext('spendgate:usage_events partitions')`;
const PARTITION_NAME = /^usage_events_(\d{4})_(\d{2})$/;

type Db = Kysely<Database>;

export interface PartitionUpkeep {
  /** Partitions made this run, by name (usage_events_YYYY_MM). */
  created: string[];
  /** Rows moved out of DEFAULT into the partitions made. */
  movedFromDefault: number;
  /** Partitions dropped whole, wholly past retention. */
  dropped: string[];
  /** Claimed request ids forgotten, their events past retention. */
  requestIdsPruned: number;
}

const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1));
const partitionName = (from: Date) => `usage_events_${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, '0')}`;

/** usage_events' partitions by name, DEFAULT's among them, in order. */
export async function usagePartitions(db: Db | Transaction<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select child.relname as name from pg_inherits
    join pg_class child on child.oid = pg_inherits.inhrelid
    where pg_inherits.inhparent = 'usage_events'::regclass
    order by 1`.execute(db);
  return rows.map((row) => row.name);
}

/** The months that have a partition, as their first instants. */
async function partitionedMonths(db: Db | Transaction<Database>): Promise<Date[]> {
  return (await usagePartitions(db)).flatMap((name) => {
    const match = PARTITION_NAME.exec(name);
    return match ? [monthStart(Number(match[1]), Number(match[2]) - 1)] : [];
  });
}

/**
 * Makes the month starting at `from` a partition, moving its rows out of DEFAULT in the
 * same transaction (PostgreSQL refuses a new partition whose range has rows in DEFAULT).
 * Returns the rows moved, or undefined when another process made it first.
 */
async function partitionMonth(db: Db, from: Date): Promise<number | undefined> {
  const to = monthStart(from.getUTCFullYear(), from.getUTCMonth() + 1);
  const name = partitionName(from);
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_KEY})`.execute(trx);
    if ((await partitionedMonths(trx)).some((month) => month.getTime() === from.getTime())) return undefined;
    await sql`create table ${sql.id(name)} (like usage_events including defaults including constraints)`.execute(trx);
    const moved = await sql`
      with moved as (
        delete from usage_events_default
        where occurred_at >= ${sql.lit(from.toISOString())} and occurred_at < ${sql.lit(to.toISOString())}
        returning *
      )
      insert into ${sql.id(name)} select * from moved`.execute(trx);
    await sql`
      alter table usage_events attach partition ${sql.id(name)}
      for values from (${sql.lit(from.toISOString())}) to (${sql.lit(to.toISOString())})`.execute(trx);
    return Number(moved.numAffectedRows ?? 0n);
  });
}

/** Makes the partitions from last month to USAGE_PARTITION_MONTHS_AHEAD ahead of `now` that are missing. */
export async function ensureUsagePartitions(db: Db, now: Date): Promise<Pick<PartitionUpkeep, 'created' | 'movedFromDefault'>> {
  const months = [];
  for (let offset = -1; offset <= USAGE_PARTITION_MONTHS_AHEAD; offset++) months.push(monthStart(now.getUTCFullYear(), now.getUTCMonth() + offset));
  return partitionMonths(db, months);
}

async function partitionMonths(db: Db, months: Date[]): Promise<Pick<PartitionUpkeep, 'created' | 'movedFromDefault'>> {
  const existing = new Set((await partitionedMonths(db)).map((month) => month.getTime()));
  const result = { created: [] as string[], movedFromDefault: 0 };
  for (const month of months) {
    if (existing.has(month.getTime())) continue;
    const moved = await partitionMonth(db, month);
    if (moved === undefined) continue;
    result.created.push(partitionName(month));
    result.movedFromDefault += moved;
  }
  return result;
}

/**
 * The scheduled upkeep: partitions ahead, a partition for each month with rows in DEFAULT
 * that retention still keeps, months wholly past `retentionDays` dropped, and the request
 * ids of events past retention (plus REQUEST_ID_REPLAY_DAYS) forgotten. Running it twice
 * changes nothing more.
 */
export async function upkeepUsagePartitions(db: Db, now: Date, retentionDays: number): Promise<PartitionUpkeep> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const ahead = await ensureUsagePartitions(db, now);
  const { rows: strays } = await sql<{ month: Date }>`
    select distinct date_trunc('month', occurred_at, 'UTC') as month from usage_events_default
    where occurred_at >= ${sql.lit(monthStart(cutoff.getUTCFullYear(), cutoff.getUTCMonth()).toISOString())}`.execute(db);
  const back = await partitionMonths(
    db,
    strays.map(({ month }) => new Date(month)),
  );

  const forgetBefore = new Date(cutoff.getTime() - REQUEST_ID_REPLAY_DAYS * DAY_MS);
  const pruned = await db.deleteFrom('usage_request_ids').where('claimed_at', '<', forgetBefore).executeTakeFirst();

  const dropped: string[] = [];
  for (const month of await partitionedMonths(db)) {
    const end = monthStart(month.getUTCFullYear(), month.getUTCMonth() + 1);
    if (end.getTime() > cutoff.getTime()) continue;
    const name = partitionName(month);
    const droppedHere = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${LOCK_KEY})`.execute(trx);
      if (!(await partitionedMonths(trx)).some((partitioned) => partitioned.getTime() === month.getTime())) return false;
      await sql`set local lock_timeout = ${sql.lit(DROP_LOCK_TIMEOUT)}`.execute(trx);
      await sql`drop table ${sql.id(name)}`.execute(trx);
      return true;
    });
    if (droppedHere) dropped.push(name);
  }

  return {
    created: [...ahead.created, ...back.created],
    movedFromDefault: ahead.movedFromDefault + back.movedFromDefault,
    dropped,
    requestIdsPruned: Number(pruned.numDeletedRows),
  };
}
