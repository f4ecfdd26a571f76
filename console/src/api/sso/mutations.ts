/**
 * Single sign-on: an admin's changes to the team's identity provider (the DNS proof of its
 * domains, unlinking a member's identity), and the two steps of
 * signing in through one (the IdP's URL for an address; the query it sends the browser back
 * with, traded for a session that is stored as a password sign-in's is).
 */
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { startSession } from '../auth/mutations.ts';
import { apiData } from '../client.ts';
import { ssoKeys } from './queries.ts';
import type { SsoSession, SsoSettings, SsoSettingsInput, SsoStart } from './types.ts';

export const saveSsoMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (input: SsoSettingsInput) => apiData<SsoSettings>('PUT', '/sso', { body: input, fallback: 'Failed to save single sign-on' }),
    onSuccess: (settings, input) => queryClient.setQueryData(ssoKeys.settings(input.teamId), settings),
  });

export const verifySsoDomainMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (input: { teamId: string; domain: string }) => apiData<SsoSettings>('POST', '/sso/verify-domain', { body: input, fallback: 'The domain could not be verified' }),
    onSuccess: (settings, input) => queryClient.setQueryData(ssoKeys.settings(input.teamId), settings),
  });

export const removeSsoMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (teamId: string) => apiData<null>('DELETE', '/sso', { query: { teamId }, fallback: 'Failed to remove single sign-on' }),
    onSuccess: (_answer, teamId) => queryClient.setQueryData<SsoSettings>(ssoKeys.settings(teamId), { provider: null }),
  });

export const unlinkSsoIdentityMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (input: { teamId: string; userId: string }) => apiData<null>('DELETE', '/sso/identities', { query: input, fallback: 'Failed to unlink the identity' }),
    onSuccess: (_answer, input) => queryClient.invalidateQueries({ queryKey: ssoKeys.identities(input.teamId, input.userId) }),
  });

export const startSsoMutation = () =>
  mutationOptions({
    mutationKey: ['auth', 'sso-start'],
    mutationFn: (email: string) => apiData<SsoStart>('POST', '/auth/sso/start', { body: { email }, fallback: 'Single sign-on could not start' }),
  });

export const finishSsoMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['auth', 'sso-callback'],
    mutationFn: (params: Record<string, string>) =>
      apiData<SsoSession>('POST', '/auth/sso/callback', { body: { params }, fallback: 'Single sign-on failed' }).then(startSession(queryClient)),
  });
