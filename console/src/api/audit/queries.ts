// Audit log calls: a page of the filtered log, the chain's verification (asked for by a
// button, not on load) and the export as a file. A team off Enterprise gets 403
// plan_required from each; the screen reads the plan first and asks none of them then.
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiData } from '../client.ts';
import { downloadApiFile } from '../download.ts';
import type { AuditExportFormat, AuditFilters, AuditPage, AuditVerification } from './types.ts';

export const FETCH_AUDIT_FAILED = 'Failed to fetch the audit log';
export const VERIFY_AUDIT_FAILED = 'Failed to verify the audit log';
export const EXPORT_AUDIT_FAILED = 'Failed to export the audit log';
export const AUDIT_PAGE_SIZE = 25;

export const auditKeys = {
  all: ['audit'] as const,
  page: (filters: AuditFilters, page: number) => [...auditKeys.all, filters.teamId, 'page', filters, page] as const,
};

const defined = (filters: AuditFilters) => Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== '')) as Record<string, string>;

export const auditPageQuery = (filters: AuditFilters, page: number) =>
  queryOptions({
    queryKey: auditKeys.page(filters, page),
    queryFn: ({ signal }) =>
      apiData<AuditPage>('GET', '/audit', { signal, query: { ...defined(filters), page: String(page), pageSize: String(AUDIT_PAGE_SIZE) }, fallback: FETCH_AUDIT_FAILED }),
    retry: (failures: number, error: Error) => failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
  });

export const verifyAuditChain = (teamId: string) => apiData<AuditVerification>('GET', '/audit/verify', { query: { teamId }, fallback: VERIFY_AUDIT_FAILED });

/** Downloads the filtered log (CSV or JSON): answers the file's name. */
export const downloadAuditExport = (filters: AuditFilters, format: AuditExportFormat) =>
  downloadApiFile('/audit/export', new URLSearchParams({ ...defined(filters), format }), { fallbackName: `audit.${format}`, failure: EXPORT_AUDIT_FAILED });
