// One request in detail, its captured prompt and answer (each view is audited by the
// server), and a team's prompt capture settings.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { PromptCapture, PromptCaptureSettings, RequestDetail } from './types.ts';

export const requestKeys = {
  all: ['requests'] as const,
  detail: (requestId: string) => [...requestKeys.all, requestId] as const,
  capture: (requestId: string) => [...requestKeys.all, requestId, 'capture'] as const,
  captureSettings: (teamId: string) => ['capture-settings', teamId] as const,
};

export const requestDetailQuery = (requestId: string) =>
  queryOptions({
    queryKey: requestKeys.detail(requestId),
    queryFn: ({ signal }) => apiData<RequestDetail>('GET', `/usage/requests/${encodeURIComponent(requestId)}`, { signal, fallback: 'Failed to fetch the request' }),
  });

/** Fetched once per visit: every fetch is a "viewed prompt" entry in the team's audit log. */
export const promptCaptureQuery = (requestId: string) =>
  queryOptions({
    queryKey: requestKeys.capture(requestId),
    queryFn: ({ signal }) => apiData<PromptCapture>('GET', `/usage/requests/${encodeURIComponent(requestId)}/capture`, { signal, fallback: 'Failed to fetch the prompt' }),
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });

export const captureSettingsQuery = (teamId: string) =>
  queryOptions({
    queryKey: requestKeys.captureSettings(teamId),
    queryFn: ({ signal }) => apiData<PromptCaptureSettings>('GET', `/capture/teams/${teamId}`, { signal, fallback: 'Failed to fetch prompt capture settings' }),
  });
