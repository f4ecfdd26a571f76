// The audit log: one row for every change of money, keys, roles, budgets, connections,
// plans, SSO or alert channels — who did it (null: the system, a job) and from where (the
// request's IP and user agent, taken from the request being served), the values before and
// after with secrets redacted (core's redactSecrets).
//
// Each team's rows form a hash chain: a row's `seq` follows the last one's without a gap,
// its `prev_hash` is the last one's `hash`, and its `hash` is SHA-256 over a canonical
// serialisation of the row computed by the database (ROW_HASH). Appends lock the team's
// chain head row (audit_chains), so they are serialised per team on PostgreSQL and PGlite.
// Pruning deletes the oldest rows and records the last pruned one as the chain's anchor,
// from which verification starts.
import { AsyncLocalStorage } from 'node:async_hooks';
import { redactSecrets } from '@spendgate/core';
import { sql } from 'kysely';
import type { Db } from './db.ts';

/** The hash before a team's first entry. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);
export const AUDIT_RETENTION_DEFAULT_DAYS = 365;
export const AUDIT_RETENTION_MIN_DAYS = 30;
export const AUDIT_RETENTION_MAX_DAYS = 3650;

/** Who made a change and from where; actorUserId null is the system (a job). */
export interface AuditContext {
  actorUserId: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry {
  teamId: string;
  actorUserId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

const requestOrigin = new AsyncLocalStorage<Pick<AuditContext, 'ip' | 'userAgent'>>();

/** Runs `work` (a request being served) so the audit entries it writes record this IP and user agent. */
export function withAuditOrigin<T>(origin: Pick<AuditContext, 'ip' | 'userAgent'>, work: () => T): T {
  return requestOrigin.run(origin, work);
}

/** Runs `work` (a job) outside any request being served: the audit entries it writes record no IP or user agent. */
export function withoutAuditOrigin<T>(work: () => T): T {
  return requestOrigin.exit(work);
}

/** The canonical serialisation's hash of an audit_log row (aliased `entry`) whose previous hash is `entry.prev_hash`. */
const ROW_HASH = sql<string>`encode(sha256(convert_to(jsonb_build_array(entry.team_id, entry.seq, entry.action, entry.actor_user_id, entry.actor_ip, entry.actor_user_agent, entry.target_type, entry.target_id, entry.details, entry.before, entry.after, to_char(entry.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), entry.prev_hash::text)::text, 'UTF8')), 'hex')`;

const toJson = (values: Record<string, unknown> | undefined) =>
  values === undefined ? null : JSON.stringify(redactSecrets(values), (_name, value) => (typeof value === 'bigint' ? value.toString() : value));

async function append(trx: Db, entry: AuditEntry): Promise<void> {
  const origin = requestOrigin.getStore();
  const head = await sql<{ head_seq: bigint; head_hash: string }>`
    insert into audit_chains (team_id) values (${entry.teamId})
    on conflict (team_id) do update set team_id = excluded.team_id
    returning head_seq, head_hash
  `.execute(trx);
  const { head_seq, head_hash } = head.rows[0]!;
  await sql`
    with appended as (
      insert into audit_log (team_id, seq, actor_user_id, actor_ip, actor_user_agent, action, target_type, target_id, details, before, after, created_at, prev_hash, hash)
      select entry.*, ${ROW_HASH} from (
        select ${entry.teamId}::uuid as team_id, ${head_seq + 1n}::int8 as seq, ${entry.actorUserId}::uuid as actor_user_id,
          ${origin?.ip ?? null}::text as actor_ip, ${origin?.userAgent ?? null}::text as actor_user_agent,
          ${entry.action}::text as action, ${entry.targetType}::text as target_type, ${entry.targetId}::text as target_id,
          ${toJson(entry.details) ?? '{}'}::jsonb as details, ${toJson(entry.before)}::jsonb as before, ${toJson(entry.after)}::jsonb as after,
          now() as created_at, ${head_hash}::text as prev_hash
      ) entry
      returning seq, hash
    )
    update audit_chains set head_seq = appended.seq, head_hash = appended.hash from appended where audit_chains.team_id = ${entry.teamId}
  `.execute(trx);
}

/** Appends an entry to its team's chain: within the caller's transaction, or in one of its own. */
export async function writeAudit(db: Db, entry: AuditEntry): Promise<void> {
  if (db.isTransaction) await append(db, entry);
  else await db.transaction().execute((trx) => append(trx, entry));
}

export async function listAudit(db: Db, teamId: string) {
  return db.selectFrom('audit_log').selectAll().where('team_id', '=', teamId).orderBy('seq').execute();
}

export interface AuditFilter {
  action?: string;
  actorUserId?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
}

function filtered(db: Db, teamId: string, filter: AuditFilter) {
  let query = db.selectFrom('audit_log').leftJoin('users', 'users.id', 'audit_log.actor_user_id').where('audit_log.team_id', '=', teamId);
  if (filter.action) query = query.where('audit_log.action', '=', filter.action);
  if (filter.actorUserId) query = query.where('audit_log.actor_user_id', '=', filter.actorUserId);
  if (filter.targetType) query = query.where('audit_log.target_type', '=', filter.targetType);
  if (filter.targetId) query = query.where('audit_log.target_id', '=', filter.targetId);
  if (filter.from) query = query.where('audit_log.created_at', '>=', filter.from);
  if (filter.to) query = query.where('audit_log.created_at', '<', filter.to);
  return query;
}

const ENTRY_COLUMNS = [
  'audit_log.id',
  'audit_log.team_id',
  'audit_log.seq',
  'audit_log.actor_user_id',
  'users.email as actor_email',
  'audit_log.actor_ip',
  'audit_log.actor_user_agent',
  'audit_log.action',
  'audit_log.target_type',
  'audit_log.target_id',
  'audit_log.details',
  'audit_log.before',
  'audit_log.after',
  'audit_log.created_at',
  'audit_log.hash',
] as const;

/** One page of a team's audit log, newest first, and how many rows match in all. */
export async function listAuditPage(db: Db, teamId: string, filter: AuditFilter, page: { offset: number; limit: number }) {
  const query = filtered(db, teamId, filter);
  const [rows, total] = await Promise.all([
    query.select(ENTRY_COLUMNS).orderBy('audit_log.seq', 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export type AuditRow = Awaited<ReturnType<typeof listAuditPage>>['rows'][number];

/** Every row of a team's audit log that matches, newest first, read a batch at a time (for exports). */
export async function* readAuditRows(db: Db, teamId: string, filter: AuditFilter, batchSize = 500): AsyncGenerator<AuditRow> {
  let below: bigint | null = null;
  for (;;) {
    let query = filtered(db, teamId, filter);
    if (below !== null) query = query.where('audit_log.seq', '<', below);
    const rows = await query.select(ENTRY_COLUMNS).orderBy('audit_log.seq', 'desc').limit(batchSize).execute();
    yield* rows;
    if (rows.length < batchSize) return;
    below = rows.at(-1)!.seq;
  }
}

export type AuditBreak = 'edited' | 'missing' | 'relinked' | 'tail-missing';

export interface AuditVerification {
  ok: boolean;
  /** Rows checked, from the one after the anchor to the chain's head. */
  checked: number;
  anchorSeq: string;
  headSeq: string;
  /** The first broken link: the row at which the chain stops holding, and why. */
  broken: { seq: string; id: string | null; reason: AuditBreak } | null;
}

/**
 * Walks a team's chain from its anchor: each row's hash must be its content's, its prev_hash
 * the row before's hash (the anchor's for the first), its seq the one after; the last row
 * must be the head. Reports the first link that fails: an edited row ('edited'), one or
 * more rows missing before it ('missing'), a row moved or whose predecessor was replaced
 * ('relinked'), the newest rows deleted ('tail-missing').
 */
export async function verifyAuditChain(db: Db, teamId: string): Promise<AuditVerification> {
  const chain = await db.selectFrom('audit_chains').selectAll().where('team_id', '=', teamId).executeTakeFirst();
  const anchorSeq = chain?.anchor_seq ?? 0n;
  const anchorHash = chain?.anchor_hash ?? AUDIT_GENESIS_HASH;
  const headSeq = chain?.head_seq ?? 0n;
  const headHash = chain?.head_hash ?? AUDIT_GENESIS_HASH;
  const { rows } = await sql<{ id: bigint; seq: bigint; reason: AuditBreak }>`
    select id, seq, case
        when seq <> coalesce(prior_seq, ${anchorSeq}::int8) + 1 then 'missing'
        when prev_hash <> coalesce(prior_hash, ${anchorHash}::text) then 'relinked'
        else 'edited' end as reason
    from (
      select entry.id, entry.seq, entry.prev_hash, entry.hash, ${ROW_HASH} as content_hash,
        lag(entry.seq) over (order by entry.seq, entry.id) as prior_seq, lag(entry.hash) over (order by entry.seq, entry.id) as prior_hash
      from audit_log entry where entry.team_id = ${teamId}
    ) walked
    where seq <> coalesce(prior_seq, ${anchorSeq}::int8) + 1 or prev_hash <> coalesce(prior_hash, ${anchorHash}::text) or hash <> content_hash
    order by seq, id limit 1
  `.execute(db);
  const last = await db
    .selectFrom('audit_log')
    .select(['seq', 'hash'])
    .where('team_id', '=', teamId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const counted = await db.selectFrom('audit_log').select((eb) => eb.fn.countAll<string>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow();
  const view = (seq: bigint) => seq.toString();
  const broken = rows[0]
    ? { seq: view(rows[0].seq), id: rows[0].id.toString(), reason: rows[0].reason }
    : (last?.seq ?? anchorSeq) !== headSeq || (last?.hash ?? anchorHash) !== headHash
      ? { seq: view(headSeq), id: null, reason: 'tail-missing' as const }
      : null;
  return { ok: broken === null, checked: Number(counted.n), anchorSeq: view(anchorSeq), headSeq: view(headSeq), broken };
}

/** The teams that have an audit chain (every team that has written an entry). */
export async function listAuditTeams(db: Db): Promise<string[]> {
  return (await db.selectFrom('audit_chains').select('team_id').orderBy('team_id').execute()).map((chain) => chain.team_id);
}

/** How many days a team keeps its audit log. */
export async function findAuditRetentionDays(db: Db, teamId: string): Promise<number> {
  const chain = await db.selectFrom('audit_chains').select('retention_days').where('team_id', '=', teamId).executeTakeFirst();
  return chain?.retention_days ?? AUDIT_RETENTION_DEFAULT_DAYS;
}

export async function setAuditRetentionDays(db: Db, teamId: string, days: number): Promise<void> {
  await db
    .insertInto('audit_chains')
    .values({ team_id: teamId, retention_days: days })
    .onConflict((oc) => oc.column('team_id').doUpdateSet({ retention_days: days }))
    .execute();
}

/**
 * Deletes each team's audit rows older than its retention — always the oldest, a prefix of
 * the chain — and anchors the chain at the last one deleted, so what stays still verifies.
 * Each team's prune holds its chain head, as an append does. Returns how many rows went.
 */
export async function pruneAuditLog(db: Db, now: Date): Promise<number> {
  const { rows: due } = await sql<{ team_id: string }>`
    select chain.team_id from audit_chains chain
    where exists (select 1 from audit_log entry where entry.team_id = chain.team_id and entry.created_at < ${now}::timestamptz - chain.retention_days * interval '1 day')
  `.execute(db);
  let deleted = 0;
  for (const { team_id: teamId } of due) {
    deleted += await db.transaction().execute(async (trx) => {
      const chain = await trx.selectFrom('audit_chains').select('retention_days').where('team_id', '=', teamId).forUpdate().executeTakeFirstOrThrow();
      const cutoff = new Date(now.getTime() - chain.retention_days * 86_400_000);
      const last = await trx
        .selectFrom('audit_log')
        .select(['seq', 'hash'])
        .where('team_id', '=', teamId)
        .where('created_at', '<', cutoff)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!last) return 0;
      const gone = await trx.deleteFrom('audit_log').where('team_id', '=', teamId).where('seq', '<=', last.seq).executeTakeFirst();
      await trx.updateTable('audit_chains').set({ anchor_seq: last.seq, anchor_hash: last.hash }).where('team_id', '=', teamId).execute();
      return Number(gone.numDeletedRows);
    });
  }
  return deleted;
}
