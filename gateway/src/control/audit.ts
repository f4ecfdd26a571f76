// The audit log as team admins read it (Enterprise: reading, exporting and verifying answer
// 403 `plan_required` on another plan; every plan writes it): filtered and paged newest
// first, exported as CSV or JSON (streamed a batch at a time, spreadsheet-safe cells), its
// hash chain verified; and each team's retention (30 to 3,650 days, 365 by default), which
// any plan's admins set and the prune job applies.
import { Readable } from 'node:stream';
import { auditLogRefusal, PlanRequiredError } from '@spendgate/core';
import {
  AUDIT_RETENTION_DEFAULT_DAYS,
  type AuditFilter,
  type AuditRow,
  findAuditRetentionDays,
  listAuditPage,
  readAuditRows,
  type SqlStore,
  setAuditRetentionDays,
  verifyAuditChain,
  writeAudit,
} from '@spendgate/store';
import { stringify } from 'csv-stringify';
import type { Access } from './access.ts';
import type { PlanService } from './plans.ts';
import { userText } from './usage-export.ts';

export type AuditExportFormat = 'csv' | 'json';
export type AuditQuery = AuditFilter & { teamId: string };

/** An entry as the API answers it; actor null is the system (a job or a provider's webhook). */
export function auditEntryView(row: AuditRow) {
  return {
    id: row.id.toString(),
    seq: row.seq.toString(),
    teamId: row.team_id,
    actor: row.actor_user_id === null ? { kind: 'system' as const } : { kind: 'user' as const, userId: row.actor_user_id, email: row.actor_email },
    actorUserId: row.actor_user_id,
    ip: row.actor_ip,
    userAgent: row.actor_user_agent,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: row.details,
    before: row.before,
    after: row.after,
    createdAt: row.created_at,
    hash: row.hash,
  };
}

const EXPORT_COLUMNS = ['seq', 'created_at', 'actor', 'actor_user_id', 'ip', 'user_agent', 'action', 'target_type', 'target_id', 'details', 'before', 'after', 'hash'];

const jsonCell = (value: unknown) => (value === null ? null : JSON.stringify(value));

function csvRow(row: AuditRow) {
  return {
    seq: row.seq.toString(),
    created_at: row.created_at.toISOString(),
    actor: userText(row.actor_user_id === null ? 'system' : row.actor_email),
    actor_user_id: row.actor_user_id,
    ip: userText(row.actor_ip),
    user_agent: userText(row.actor_user_agent),
    action: userText(row.action),
    target_type: userText(row.target_type),
    target_id: userText(row.target_id),
    details: userText(jsonCell(row.details)),
    before: userText(jsonCell(row.before)),
    after: userText(jsonCell(row.after)),
    hash: row.hash,
  };
}

export function createAuditService(deps: { sql: SqlStore; access: Access; plans: Pick<PlanService, 'teamTerms'> }) {
  const { db } = deps.sql;

  /** The caller is a team admin and the team's plan includes reading the audit log. */
  async function allowed(teamId: string, userId: string): Promise<void> {
    await deps.access.team(teamId, userId, 'team.audit.view');
    const { terms } = await deps.plans.teamTerms(teamId);
    if (!terms.auditLog) throw new PlanRequiredError(auditLogRefusal(terms));
  }

  return {
    async list(userId: string, query: AuditQuery & { page: number; pageSize: number }) {
      await allowed(query.teamId, userId);
      const { teamId, page, pageSize, ...filter } = query;
      const { rows, total } = await listAuditPage(db, teamId, filter, { offset: (page - 1) * pageSize, limit: pageSize });
      return { entries: rows.map(auditEntryView), page, pageSize, total };
    },

    /** The filtered log as a file, newest first: a CSV whose cells a spreadsheet reads as text, or a JSON array of the API's entries. */
    async export(userId: string, query: AuditQuery & { format: AuditExportFormat }): Promise<{ filename: string; contentType: string; stream: Readable }> {
      await allowed(query.teamId, userId);
      const { teamId, format, ...filter } = query;
      const rows = readAuditRows(db, teamId, filter);
      const filename = `audit-${teamId}-${new Date().toISOString().slice(0, 10)}.${format}`;
      if (format === 'csv') {
        const csv = stringify({ header: true, columns: EXPORT_COLUMNS, record_delimiter: 'windows' });
        Readable.from(
          (async function* () {
            for await (const row of rows) yield csvRow(row);
          })(),
        )
          .on('error', (error) => csv.destroy(error))
          .pipe(csv);
        return { filename, contentType: 'text/csv; charset=utf-8', stream: csv };
      }
      async function* json() {
        let first = true;
        yield '[';
        for await (const row of rows) {
          yield `${first ? '\n' : ',\n'}${JSON.stringify(auditEntryView(row))}`;
          first = false;
        }
        yield first ? ']\n' : '\n]\n';
      }
      return { filename, contentType: 'application/json; charset=utf-8', stream: Readable.from(json()) };
    },

    /** Walks the team's hash chain from its anchor and reports the first broken link. */
    async verify(userId: string, teamId: string) {
      await allowed(teamId, userId);
      return { teamId, ...(await verifyAuditChain(db, teamId)), verifiedAt: new Date() };
    },

    async retention(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.audit.view');
      return { teamId, auditRetentionDays: await findAuditRetentionDays(db, teamId), defaultDays: AUDIT_RETENTION_DEFAULT_DAYS };
    },

    async setRetention(userId: string, teamId: string, auditRetentionDays: number) {
      await deps.access.team(teamId, userId, 'team.settings.manage');
      await db.transaction().execute(async (trx) => {
        const before = await findAuditRetentionDays(trx, teamId);
        await setAuditRetentionDays(trx, teamId, auditRetentionDays);
        if (before !== auditRetentionDays) {
          await writeAudit(trx, { teamId, actorUserId: userId, action: 'audit.retention_updated', targetType: 'team', targetId: teamId, before: { auditRetentionDays: before }, after: { auditRetentionDays } });
        }
      });
      return { teamId, auditRetentionDays, defaultDays: AUDIT_RETENTION_DEFAULT_DAYS };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
