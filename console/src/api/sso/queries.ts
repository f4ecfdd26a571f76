// A team's single sign-on settings and the identities its members' accounts are linked to (team admins, Enterprise).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { SsoIdentities, SsoSettings } from './types.ts';

export const ssoKeys = {
  settings: (teamId: string) => ['sso', teamId] as const,
  identities: (teamId: string, userId: string) => ['sso', teamId, 'identities', userId] as const,
};

export const ssoSettingsQuery = (teamId: string) =>
  queryOptions({
    queryKey: ssoKeys.settings(teamId),
    queryFn: ({ signal }) => apiData<SsoSettings>('GET', '/sso', { query: { teamId }, signal, fallback: 'Failed to get single sign-on settings' }),
  });

export const ssoIdentitiesQuery = (teamId: string, userId: string) =>
  queryOptions({
    queryKey: ssoKeys.identities(teamId, userId),
    queryFn: ({ signal }) => apiData<SsoIdentities>('GET', '/sso/identities', { query: { teamId, userId }, signal, fallback: 'Failed to get the linked identities' }),
  });
