// Usage rollups: per team, hour (UTC) or day (the team's time zone) and dimension (group,
// key, connection, provider, model, key kind), the sums of the usage events in it. The
// meter adds to them in the statement that records the events; they can be recomputed
// from the events for any window. Latency is kept as a sum, a maximum and a histogram of
// fixed buckets (core's latency-histogram.ts), so ranges merge.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table usage_rollups (
      team_id uuid not null,
      grain text not null check (grain in ('hour', 'day')),
      bucket_start timestamptz not null,
      group_id uuid not null,
      key_id uuid not null,
      connection_id uuid,
      provider text not null,
      model text not null,
      key_kind text not null,
      requests bigint not null,
      errors bigint not null,
      estimated_requests bigint not null,
      unpriced_requests bigint not null,
      input_tokens bigint not null,
      cached_read_tokens bigint not null,
      cache_write_5m_tokens bigint not null,
      cache_write_1h_tokens bigint not null,
      output_tokens bigint not null,
      reasoning_tokens bigint not null,
      cost_micros bigint not null,
      billed_micros bigint not null,
      budget_spend_micros bigint not null,
      latency_sum_ms bigint not null,
      latency_max_ms integer not null,
      latency_histogram bigint[] not null,
      constraint usage_rollups_cell unique nulls not distinct
        (team_id, grain, bucket_start, group_id, key_id, connection_id, provider, model, key_kind)
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_rollups').execute();
}
