// Fixed-window hit counters in the database, so every gateway process counts together.
import { sql } from 'kysely';
import type { Db } from './db.ts';

/** Counts one hit for `bucket` in the window starting at `windowStart`; returns the hits so far. */
export async function countHit(db: Db, bucket: string, windowStart: Date): Promise<number> {
  const row = await db
    .insertInto('rate_limit_hits')
    .values({ bucket, window_start: windowStart, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql`rate_limit_hits.hits + 1` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  // The first hit of a window clears the bucket's older windows.
  if (row.hits === 1) await db.deleteFrom('rate_limit_hits').where('bucket', '=', bucket).where('window_start', '<', windowStart).execute();
  return row.hits;
}

/** Deletes every bucket's windows that started before `before` (buckets hit once and never again); returns how many. */
export async function deleteHitsBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('rate_limit_hits').where('window_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
