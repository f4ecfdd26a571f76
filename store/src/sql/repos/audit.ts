// The audit log: one row for every change of money, keys, roles, budgets or connections.
import type { Db } from './db.ts';

export interface AuditEntry {
  teamId: string;
  actorUserId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
}

export async function writeAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      team_id: entry.teamId,
      actor_user_id: entry.actorUserId,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

export async function listAudit(db: Db, teamId: string) {
  return db.selectFrom('audit_log').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
}

export interface AuditFilter {
  action?: string;
  actorUserId?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
}

/** One page of a team's audit log, newest first, and how many rows match in all. */
export async function listAuditPage(db: Db, teamId: string, filter: AuditFilter, page: { offset: number; limit: number }) {
  let query = db.selectFrom('audit_log').where('team_id', '=', teamId);
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.actorUserId) query = query.where('actor_user_id', '=', filter.actorUserId);
  if (filter.targetType) query = query.where('target_type', '=', filter.targetType);
  if (filter.targetId) query = query.where('target_id', '=', filter.targetId);
  if (filter.from) query = query.where('created_at', '>=', filter.from);
  if (filter.to) query = query.where('created_at', '<', filter.to);
  const [rows, total] = await Promise.all([
    query.selectAll().orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
