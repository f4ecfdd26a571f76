// GPU queries: a team's settings (what the screen reads first: a team off Enterprise gets
// 403 plan_required here, and the screen says so instead of asking for the rest), and the
// reads over a range. An answer the server refused (4xx) is not asked again.
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiData } from '../client.ts';
import type { GpuHeatmap, GpuIdleList, GpuPower, GpuScope, GpuSettings, GpuUtilization, GpuWaste } from './types.ts';

export const FETCH_GPU_SETTINGS_FAILED = 'Failed to fetch GPU settings';
export const FETCH_GPU_ANALYTICS_FAILED = 'Failed to fetch GPU analytics';

export const gpuKeys = {
  all: ['gpu'] as const,
  team: (teamId: string) => [...gpuKeys.all, teamId] as const,
  settings: (teamId: string) => [...gpuKeys.team(teamId), 'settings'] as const,
  read: (read: string, scope: GpuScope) => [...gpuKeys.team(scope.teamId), read, scope.from, scope.to] as const,
};

/** The server's answer that the team's plan lacks GPU analytics: 403 with code `plan_required`. */
export const isPlanRequired = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status === 403 && (error.body as { code?: unknown } | undefined)?.code === 'plan_required';

const retryUnlessRefused = (failures: number, error: Error) => failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500);

export const gpuSettingsQuery = (teamId: string) =>
  queryOptions({
    queryKey: gpuKeys.settings(teamId),
    queryFn: ({ signal }) => apiData<GpuSettings>('GET', '/gpu/settings', { signal, query: { teamId }, fallback: FETCH_GPU_SETTINGS_FAILED }),
    retry: retryUnlessRefused,
  });

const read = <T>(name: string, scope: GpuScope) =>
  queryOptions({
    queryKey: gpuKeys.read(name, scope),
    queryFn: ({ signal }) => apiData<T>('GET', `/gpu/${name}`, { signal, query: { ...scope }, fallback: FETCH_GPU_ANALYTICS_FAILED }),
    retry: retryUnlessRefused,
  });

export const gpuUtilizationQuery = (scope: GpuScope) => read<GpuUtilization>('utilization', scope);
export const gpuHeatmapQuery = (scope: GpuScope) => read<GpuHeatmap>('heatmap', scope);
export const gpuIdleQuery = (scope: GpuScope) => read<GpuIdleList>('idle', scope);
export const gpuPowerQuery = (scope: GpuScope) => read<GpuPower>('power', scope);
export const gpuWasteQuery = (scope: GpuScope) => read<GpuWaste>('waste', scope);
