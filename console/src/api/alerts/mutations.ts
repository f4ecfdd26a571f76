// Alert channel mutations: add, send a test, delete. Each refreshes the team's channels
// and history. And a team admin's choice of spend digest, whose answer replaces the cached one.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { alertKeys } from './queries.ts';
import type { DigestFrequency } from '@spendgate/core';
import type { AlertChannel, AlertChannelInput, SpendDigest, SpendDigestPreview } from './types.ts';

export const ADD_ALERT_CHANNEL_FAILED = 'Failed to add the alert channel';
export const TEST_ALERT_CHANNEL_FAILED = 'Failed to send the test alert';
export const DELETE_ALERT_CHANNEL_FAILED = 'Failed to delete the alert channel';

const refreshAlerts = (queryClient: QueryClient) => () => queryClient.invalidateQueries({ queryKey: alertKeys.all });

export const addAlertChannelMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['alerts', 'add-channel'],
    mutationFn: (input: AlertChannelInput) => apiData<AlertChannel>('POST', '/alerts/channels', { body: input, fallback: ADD_ALERT_CHANNEL_FAILED }),
    onSuccess: refreshAlerts(queryClient),
  });

export const testAlertChannelMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['alerts', 'test-channel'],
    mutationFn: (channel: Pick<AlertChannel, 'id' | 'teamId'>) =>
      apiData<{ alertId: string; deliveryId: string }>('POST', `/alerts/channels/${channel.id}/test`, { query: { teamId: channel.teamId }, fallback: TEST_ALERT_CHANNEL_FAILED }),
    onSuccess: refreshAlerts(queryClient),
  });

export const deleteAlertChannelMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['alerts', 'delete-channel'],
    mutationFn: (channel: Pick<AlertChannel, 'id' | 'teamId'>) =>
      apiData<null>('DELETE', `/alerts/channels/${channel.id}`, { query: { teamId: channel.teamId }, fallback: DELETE_ALERT_CHANNEL_FAILED }),
    onSuccess: refreshAlerts(queryClient),
  });

export const setSpendDigestMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['alerts', 'spend-digest'],
    mutationFn: (choice: { teamId: string; frequency: DigestFrequency | null }) =>
      apiData<SpendDigest>('PUT', '/alerts/spend-digest', { body: choice, fallback: 'Failed to save the spend digest' }),
    onSuccess: (digest) => queryClient.setQueryData(alertKeys.spendDigest(digest.teamId), digest),
  });

/** Mails the caller a sample digest of the last whole period now. */
export const previewSpendDigestMutation = () =>
  mutationOptions({
    mutationKey: ['alerts', 'spend-digest-preview'],
    mutationFn: (teamId: string) =>
      apiData<SpendDigestPreview>('POST', '/alerts/spend-digest/preview', { body: { teamId }, fallback: 'Failed to send a sample digest' }),
  });
