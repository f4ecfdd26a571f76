// The audit log as team admins read it: filtered and paged, newest first.
import { type AuditFilter, listAuditPage, type SqlStore } from '@spendgate/store';
import type { Access } from './access.ts';

export function createAuditService(deps: { sql: SqlStore; access: Access }) {
  return {
    async list(userId: string, query: AuditFilter & { teamId: string; page: number; pageSize: number }) {
      await deps.access.team(query.teamId, userId, 'team.audit.view');
      const { teamId, page, pageSize, ...filter } = query;
      const { rows, total } = await listAuditPage(deps.sql.db, teamId, filter, { offset: (page - 1) * pageSize, limit: pageSize });
      return {
        entries: rows.map((row) => ({
          id: row.id.toString(),
          teamId: row.team_id,
          actorUserId: row.actor_user_id,
          action: row.action,
          targetType: row.target_type,
          targetId: row.target_id,
          details: row.details,
          createdAt: row.created_at,
        })),
        page,
        pageSize,
        total,
      };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
