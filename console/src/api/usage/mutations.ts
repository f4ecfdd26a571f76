// Usage actions: make the caller's demo team (POST /demo/team), and download the usage
// as a file (GET /usage/export, CSV or FOCUS; see download.ts).
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { downloadApiFile } from '../download.ts';
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

/** Fetches the export and saves it: answers the file's name. */
export async function downloadUsageExport(filters: UsageFilters, format: ExportFormat): Promise<string> {
  const params = new URLSearchParams({ format });
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) params.set(name, value);
  return downloadApiFile('/usage/export', params, { fallbackName: `spendgate-usage-${format}.csv`, failure: EXPORT_FAILED });
}

export const exportMutation = () =>
  mutationOptions({
    mutationKey: ['usage', 'export'],
    mutationFn: ({ filters, format }: { filters: UsageFilters; format: ExportFormat }) => downloadUsageExport(filters, format),
  });
