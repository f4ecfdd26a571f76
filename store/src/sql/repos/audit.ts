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
