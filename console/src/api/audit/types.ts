// The audit log as /api/audit answers it (reading, exporting and verifying are Enterprise):
// entries newest first with who made each change and from where, the values before and
// after (secrets redacted by the server), and the hash chain's verification.

export type AuditActor = { kind: 'system' } | { kind: 'user'; userId: string; email: string | null };

export interface AuditEntry {
  id: string;
  seq: string;
  teamId: string;
  actor: AuditActor;
  actorUserId: string | null;
  ip: string | null;
  userAgent: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: string;
  hash: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  page: number;
  pageSize: number;
  total: number;
}

/** What the log is narrowed to: each absent field matches every entry; from/to ISO date-times. */
export interface AuditFilters {
  teamId: string;
  action?: string;
  actorUserId?: string;
  targetType?: string;
  from?: string;
  to?: string;
}

export interface AuditVerification {
  teamId: string;
  ok: boolean;
  checked: number;
  anchorSeq: string;
  headSeq: string;
  broken: { seq: string; id: string | null; reason: 'edited' | 'missing' | 'relinked' | 'tail-missing' } | null;
  verifiedAt: string;
}

export type AuditExportFormat = 'csv' | 'json';
