// AI advisor mutations: generate tips (new findings are charged), apply one's change — both
// refresh the team's tips; applying may revoke a key, so key lists are refreshed too — and
// set the team's wording.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { advisorKeys } from './queries.ts';
import type { AdvisorInsight, AdvisorRun, AdvisorTarget, AdvisorWordingChange, AdvisorWordingSetting } from './types.ts';

export const GENERATE_TIPS_FAILED = 'Failed to generate optimization tips';
export const APPLY_TIP_FAILED = 'Failed to apply the tip';
export const SAVE_WORDING_FAILED = 'Failed to save the advisor wording setting';

export const generateTipsMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['advisor', 'generate'],
    mutationFn: (input: { teamId: string; data: AdvisorTarget[] }) => apiData<AdvisorRun>('POST', '/usage/ai-advisor/generate', { body: input, fallback: GENERATE_TIPS_FAILED }),
    onSuccess: (run) => queryClient.invalidateQueries({ queryKey: advisorKeys.team(run.teamId) }),
  });

export const applyTipMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['advisor', 'apply'],
    mutationFn: (insight: Pick<AdvisorInsight, 'id'>) => apiData<AdvisorInsight>('POST', `/usage/ai-advisor/${insight.id}/apply`, { fallback: APPLY_TIP_FAILED }),
    onSuccess: () => queryClient.invalidateQueries(),
  });

export const saveWordingMutation = (queryClient: QueryClient, teamId: string) =>
  mutationOptions({
    mutationKey: ['advisor', 'wording', teamId],
    mutationFn: (change: AdvisorWordingChange) =>
      apiData<AdvisorWordingSetting>('PUT', `/usage/ai-advisor/wording/${teamId}`, { body: change, fallback: SAVE_WORDING_FAILED }),
    onSuccess: (setting) => queryClient.setQueryData(advisorKeys.wording(teamId), setting),
  });
