// Changing prompt capture: the team's settings (team admins) and a group's opt-in. Both
// answer the team's settings, which replace the cached ones.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { complianceKeys } from '../compliance/queries.ts';
import { requestKeys } from './queries.ts';
import type { PromptCaptureSettings, TeamCaptureChanges } from './types.ts';

const FAILED = 'Failed to update prompt capture';

export const updateTeamCaptureMutation = (queryClient: QueryClient, teamId: string) =>
  mutationOptions({
    mutationFn: (changes: TeamCaptureChanges) => apiData<PromptCaptureSettings>('PUT', `/capture/teams/${teamId}`, { body: changes, fallback: FAILED }),
    onSuccess: (settings) => {
      queryClient.setQueryData(requestKeys.captureSettings(teamId), settings);
      // The Data retention panel shows the capture's retention too.
      return queryClient.invalidateQueries({ queryKey: complianceKeys.retention(teamId) });
    },
  });

export const updateGroupCaptureMutation = (queryClient: QueryClient, teamId: string) =>
  mutationOptions({
    mutationFn: ({ groupId, enabled }: { groupId: string; enabled: boolean }) =>
      apiData<PromptCaptureSettings>('PUT', `/capture/groups/${groupId}`, { body: { enabled }, fallback: FAILED }),
    onSuccess: (settings) => queryClient.setQueryData(requestKeys.captureSettings(teamId), settings),
  });
