// Alert queries: a team's channels and its alert history. The history refreshes itself
// while a delivery is still under way, so a test message's outcome appears without a reload.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { AlertChannel, AlertEvent, SpendDigest } from './types.ts';

export const alertKeys = {
  all: ['alerts'] as const,
  channels: (teamId: string) => [...alertKeys.all, teamId, 'channels'] as const,
  history: (teamId: string) => [...alertKeys.all, teamId, 'history'] as const,
  spendDigest: (teamId: string) => [...alertKeys.all, teamId, 'spend-digest'] as const,
};

export const FETCH_ALERT_CHANNELS_FAILED = 'Failed to fetch alert channels';
export const FETCH_ALERTS_FAILED = 'Failed to fetch alerts';

const UNDER_WAY_REFRESH_MS = 2_000;

export const alertChannelsQuery = (teamId: string) =>
  queryOptions({
    queryKey: alertKeys.channels(teamId),
    queryFn: ({ signal }) => apiData<AlertChannel[]>('GET', '/alerts/channels', { signal, query: { teamId }, fallback: FETCH_ALERT_CHANNELS_FAILED }),
  });

export const alertHistoryQuery = (teamId: string) =>
  queryOptions({
    queryKey: alertKeys.history(teamId),
    queryFn: ({ signal }) => apiData<AlertEvent[]>('GET', '/alerts', { signal, query: { teamId }, fallback: FETCH_ALERTS_FAILED }),
    refetchInterval: (query) =>
      query.state.data?.some((alert) => alert.deliveries.some((delivery) => delivery.status === 'pending' || delivery.status === 'retrying')) ? UNDER_WAY_REFRESH_MS : false,
  });

export const spendDigestQuery = (teamId: string) =>
  queryOptions({
    queryKey: alertKeys.spendDigest(teamId),
    queryFn: ({ signal }) => apiData<SpendDigest>('GET', '/alerts/spend-digest', { signal, query: { teamId }, fallback: 'Failed to fetch the spend digest' }),
  });
