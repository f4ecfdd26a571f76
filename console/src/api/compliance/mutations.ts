// Compliance readiness actions: save a team's retention settings (prompt capture's answer
// changes with it), and download its access review as a CSV file.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { downloadApiFile } from '../download.ts';
import { requestKeys } from '../requests/queries.ts';
import { complianceKeys } from './queries.ts';
import type { RetentionChanges, TeamRetention } from './types.ts';

export const SAVE_RETENTION_FAILED = 'Failed to save the retention settings';
export const ACCESS_REVIEW_FAILED = 'Failed to export the access review';

export const saveRetentionMutation = (queryClient: QueryClient, teamId: string) =>
  mutationOptions({
    mutationKey: ['compliance', teamId, 'retention'],
    mutationFn: (changes: RetentionChanges) => apiData<TeamRetention>('PUT', `/teams/${teamId}/retention`, { body: changes, fallback: SAVE_RETENTION_FAILED }),
    onSuccess: (saved) => {
      queryClient.setQueryData(complianceKeys.retention(teamId), saved);
      return queryClient.invalidateQueries({ queryKey: requestKeys.captureSettings(teamId) });
    },
  });

export const accessReviewMutation = (teamId: string) =>
  mutationOptions({
    mutationKey: ['compliance', teamId, 'access-review'],
    mutationFn: () =>
      downloadApiFile(`/teams/${teamId}/access-review`, new URLSearchParams({ format: 'csv' }), { fallbackName: `access-review-${teamId}.csv`, failure: ACCESS_REVIEW_FAILED }),
  });
