// GPU settings' calls (team admins): the idle rules, the price table, ingest keys (issued
// once, revoked), DCGM exporters (added, deleted). Each refreshes the team's GPU answers:
// new rules or prices change what the reads show.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { gpuKeys } from './queries.ts';
import type { GpuExporter, GpuIngestKeyIssued, GpuSettings } from './types.ts';

export const SAVE_GPU_RULES_FAILED = 'Failed to save the idle rules';
export const SAVE_GPU_PRICES_FAILED = 'Failed to save the GPU prices';
export const ISSUE_INGEST_KEY_FAILED = 'Failed to issue the ingest key';
export const REVOKE_INGEST_KEY_FAILED = 'Failed to revoke the ingest key';
export const ADD_EXPORTER_FAILED = 'Failed to add the DCGM exporter';
export const DELETE_EXPORTER_FAILED = 'Failed to delete the DCGM exporter';

const refresh = (queryClient: QueryClient, teamId: string) => queryClient.invalidateQueries({ queryKey: gpuKeys.team(teamId) });

export const saveGpuRulesMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['gpu', 'rules'],
    mutationFn: (input: { teamId: string; idleBelowPct: number; idleAfterMinutes: number }) => apiData<GpuSettings>('PUT', '/gpu/settings', { body: input, fallback: SAVE_GPU_RULES_FAILED }),
    onSuccess: (_data, input) => refresh(queryClient, input.teamId),
  });

export const saveGpuPricesMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['gpu', 'prices'],
    mutationFn: (input: { teamId: string; prices: { model: string; perHour: string }[] }) => apiData<GpuSettings>('PUT', '/gpu/prices', { body: input, fallback: SAVE_GPU_PRICES_FAILED }),
    onSuccess: (_data, input) => refresh(queryClient, input.teamId),
  });

export const issueIngestKeyMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['gpu', 'issue-key'],
    mutationFn: (input: { teamId: string; name: string }) => apiData<GpuIngestKeyIssued>('POST', '/gpu/ingest-keys', { body: input, fallback: ISSUE_INGEST_KEY_FAILED }),
    onSuccess: (_data, input) => refresh(queryClient, input.teamId),
  });

export const revokeIngestKeyMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['gpu', 'revoke-key'],
    mutationFn: (input: { teamId: string; id: string }) => apiData<null>('DELETE', `/gpu/ingest-keys/${input.id}`, { query: { teamId: input.teamId }, fallback: REVOKE_INGEST_KEY_FAILED }),
    onSuccess: (_data, input) => refresh(queryClient, input.teamId),
  });

export const addExporterMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['gpu', 'add-exporter'],
    mutationFn: (input: { teamId: string; cluster: string; url: string }) => apiData<GpuExporter>('POST', '/gpu/exporters', { body: input, fallback: ADD_EXPORTER_FAILED }),
    onSuccess: (_data, input) => refresh(queryClient, input.teamId),
  });

export const deleteExporterMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['gpu', 'delete-exporter'],
    mutationFn: (input: { teamId: string; id: string }) => apiData<null>('DELETE', `/gpu/exporters/${input.id}`, { query: { teamId: input.teamId }, fallback: DELETE_EXPORTER_FAILED }),
    onSuccess: (_data, input) => refresh(queryClient, input.teamId),
  });
