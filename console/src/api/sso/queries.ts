// A team's single sign-on settings (team admins, Enterprise).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { SsoSettings } from './types.ts';

export const ssoKeys = { settings: (teamId: string) => ['sso', teamId] as const };

export const ssoSettingsQuery = (teamId: string) =>
  queryOptions({
    queryKey: ssoKeys.settings(teamId),
    queryFn: ({ signal }) => apiData<SsoSettings>('GET', '/sso', { query: { teamId }, signal, fallback: 'Failed to get single sign-on settings' }),
  });
