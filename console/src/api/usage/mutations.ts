// Usage actions: make the caller's demo team (POST /demo/team), and download the usage
// as a file (GET /usage/export, CSV or FOCUS). The file comes through fetch with the
// session's bearer token, as every API call does — a plain link would carry none — and
// is handed to the browser as a Blob download.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { API_ROOT } from '../../shared/config.ts';
import { readToken } from '../../shared/session.ts';
import { ApiError, apiData } from '../client.ts';
import { teamKeys } from '../team/queries.ts';
import type { DemoTeam, ExportFormat, UsageFilters } from './types.ts';

export const DEMO_FAILED = 'Failed to create the demo team';
export const EXPORT_FAILED = 'Failed to export usage';

export const demoTeamMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['usage', 'demo'],
    mutationFn: () => apiData<DemoTeam>('POST', '/demo/team', { fallback: DEMO_FAILED }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: teamKeys.mine() }),
  });

/** The file name the server gave (content-disposition), else one of ours. */
function attachmentName(response: Response, format: ExportFormat): string {
  const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  return named ?? `spendgate-usage-${format}.csv`;
}

/** Fetches the export and saves it: answers the file's name. */
export async function downloadUsageExport(filters: UsageFilters, format: ExportFormat): Promise<string> {
  const params = new URLSearchParams({ format });
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) params.set(name, value);
  const token = readToken();
  let response: Response;
  try {
    response = await fetch(`${API_ROOT}/usage/export?${params}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch {
    throw new ApiError(EXPORT_FAILED, 0);
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    const message = (body as { message?: unknown } | undefined)?.message;
    throw new ApiError(typeof message === 'string' && message ? message : EXPORT_FAILED, response.status, body);
  }
  const name = attachmentName(response, format);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the Blob to the download; revoked on the next turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
  return name;
}

export const exportMutation = () =>
  mutationOptions({
    mutationKey: ['usage', 'export'],
    mutationFn: ({ filters, format }: { filters: UsageFilters; format: ExportFormat }) => downloadUsageExport(filters, format),
  });
