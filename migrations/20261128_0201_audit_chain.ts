// The audit log is hash-chained per team: each row carries its sequence number within the
// team (gap-free), who did it from where (IP, user agent), the values before and after,
// the previous row's hash and its own — SHA-256 over a canonical serialisation computed by
// the database (a jsonb array of the row's fields, created_at in UTC to the microsecond).
// audit_chains holds each team's chain head (the row appends lock, so they are serialised
// per team), the anchor verification starts from once old rows are pruned (the last
// pruned row's sequence number and hash), and the team's audit retention in days. Rows
// already written are chained here in id order.
import { type Kysely, type RawBuilder, sql } from 'kysely';

const GENESIS = '0'.repeat(64);

/** The hash of the audit_log row `id` once its sequence number is set and its previous hash is `prevHash`. */
const rowHash = (prevHash: string): RawBuilder<string> =>
  sql`encode(sha256(convert_to(jsonb_build_array(team_id, seq, action, actor_user_id, actor_ip, actor_user_agent, target_type, target_id, details, before, after, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), ${prevHash}::text)::text, 'UTF8')), 'hex')`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('audit_log')
    .addColumn('seq', 'bigint')
    .addColumn('actor_ip', 'text')
    .addColumn('actor_user_agent', 'text')
    .addColumn('before', 'jsonb')
    .addColumn('after', 'jsonb')
    .addColumn('prev_hash', 'text')
    .addColumn('hash', 'text')
    .execute();
  await db.schema
    .createTable('audit_chains')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey())
    .addColumn('head_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('head_hash', 'text', (c) => c.notNull().defaultTo(GENESIS))
    .addColumn('anchor_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('anchor_hash', 'text', (c) => c.notNull().defaultTo(GENESIS))
    .addColumn('retention_days', 'integer', (c) => c.notNull().defaultTo(365).check(sql`retention_days between 30 and 3650`))
    .execute();

  await sql`update audit_log set seq = numbered.seq from (select id, row_number() over (partition by team_id order by id) as seq from audit_log) numbered where audit_log.id = numbered.id`.execute(
    db,
  );
  const rows = await db.selectFrom('audit_log').select(['id', 'team_id', 'seq']).orderBy('id').execute();
  const heads = new Map<string, { seq: string; hash: string }>();
  for (const row of rows) {
    const prevHash = heads.get(row.team_id)?.hash ?? GENESIS;
    const { hash } = await db
      .updateTable('audit_log')
      .set({ prev_hash: prevHash, hash: rowHash(prevHash) })
      .where('id', '=', row.id)
      .returning('hash')
      .executeTakeFirstOrThrow();
    heads.set(row.team_id, { seq: String(row.seq), hash });
  }
  for (const [teamId, head] of heads) await db.insertInto('audit_chains').values({ team_id: teamId, head_seq: head.seq, head_hash: head.hash }).execute();

  await db.schema
    .alterTable('audit_log')
    .alterColumn('seq', (c) => c.setNotNull())
    .alterColumn('prev_hash', (c) => c.setNotNull())
    .alterColumn('hash', (c) => c.setNotNull())
    .execute();
  await db.schema.createIndex('audit_log_team_seq_idx').on('audit_log').columns(['team_id', 'seq']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_team_seq_idx').execute();
  await db.schema.dropTable('audit_chains').execute();
  await db.schema.alterTable('audit_log').dropColumn('seq').dropColumn('actor_ip').dropColumn('actor_user_agent').dropColumn('before').dropColumn('after').dropColumn('prev_hash').dropColumn('hash').execute();
}
