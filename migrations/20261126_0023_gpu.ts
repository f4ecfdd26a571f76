// GPU infrastructure analytics (Enterprise): a team's clusters, the DCGM exporters scraped
// for each, the ingest keys its agents push nvidia-smi batches with (SHA-256 hashes only),
// its GPUs (by UUID), raw samples (kept short-term, one per GPU and instant, so a batch sent
// twice counts once), per-minute rollups with each minute's state, the processes seen per
// GPU and minute, which GPUs have minutes to roll up, and the team's idle rules and GPU
// price table (GBP micros per hour by model).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('gpu_clusters')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('gpu_clusters_team_name', ['team_id', 'name'])
    .execute();

  await db.schema
    .createTable('gpu_scrape_targets')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('cluster_id', 'uuid', (c) => c.notNull().references('gpu_clusters.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_scraped_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .addUniqueConstraint('gpu_scrape_targets_cluster_url', ['cluster_id', 'url'])
    .execute();

  await db.schema
    .createTable('gpu_ingest_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('gpu_ingest_keys_team_idx').on('gpu_ingest_keys').columns(['team_id', 'created_at']).execute();

  await db.schema
    .createTable('gpu_devices')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('cluster_id', 'uuid', (c) => c.notNull().references('gpu_clusters.id').onDelete('cascade'))
    .addColumn('gpu_uuid', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('host', 'text')
    .addColumn('device_index', 'integer')
    .addColumn('memory_total_mib', 'integer')
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('gpu_devices_team_uuid', ['team_id', 'gpu_uuid'])
    .execute();

  await db.schema
    .createTable('gpu_samples')
    .addColumn('gpu_id', 'uuid', (c) => c.notNull().references('gpu_devices.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('utilization_pct', 'double precision')
    .addColumn('memory_used_mib', 'integer')
    .addColumn('power_w', 'double precision')
    .addPrimaryKeyConstraint('gpu_samples_pk', ['gpu_id', 'at'])
    .execute();
  await db.schema.createIndex('gpu_samples_at_idx').on('gpu_samples').column('at').execute();

  await db.schema
    .createTable('gpu_minutes')
    .addColumn('gpu_id', 'uuid', (c) => c.notNull().references('gpu_devices.id').onDelete('cascade'))
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('active', 'idle-held', 'idle')`))
    .addColumn('samples', 'integer', (c) => c.notNull())
    .addColumn('peak_utilization_pct', 'double precision')
    .addColumn('mean_utilization_pct', 'double precision')
    .addColumn('peak_memory_mib', 'integer')
    .addColumn('mean_power_w', 'double precision')
    .addPrimaryKeyConstraint('gpu_minutes_pk', ['gpu_id', 'minute'])
    .execute();
  await db.schema.createIndex('gpu_minutes_team_idx').on('gpu_minutes').columns(['team_id', 'minute']).execute();

  await db.schema
    .createTable('gpu_process_minutes')
    .addColumn('gpu_id', 'uuid', (c) => c.notNull().references('gpu_devices.id').onDelete('cascade'))
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('process_name', 'text', (c) => c.notNull())
    .addColumn('used_memory_mib', 'integer')
    .addPrimaryKeyConstraint('gpu_process_minutes_pk', ['gpu_id', 'minute', 'pid'])
    .execute();

  await db.schema
    .createTable('gpu_rollup_pending')
    .addColumn('gpu_id', 'uuid', (c) => c.primaryKey().references('gpu_devices.id').onDelete('cascade'))
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('changed_from', 'timestamptz', (c) => c.notNull())
    .addColumn('marked_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('gpu_settings')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('idle_below_pct', 'integer', (c) => c.notNull())
    .addColumn('idle_after_minutes', 'integer', (c) => c.notNull())
    .addColumn('updated_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('gpu_prices')
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('per_hour_micros', 'int8', (c) => c.notNull())
    .addColumn('updated_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('gpu_prices_pk', ['team_id', 'model'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['gpu_prices', 'gpu_settings', 'gpu_rollup_pending', 'gpu_process_minutes', 'gpu_minutes', 'gpu_samples', 'gpu_devices', 'gpu_ingest_keys', 'gpu_scrape_targets', 'gpu_clusters']) {
    await db.schema.dropTable(table).execute();
  }
}
