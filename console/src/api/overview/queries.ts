// The team overview query (GET /usage/team?teamId=).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { TeamOverview } from './types.ts';

export const overviewKeys = {
  all: ['overview'] as const,
  team: (teamId: string) => [...overviewKeys.all, teamId] as const,
};

/** Every step done: a connection, a group, a live key and a request recorded. */
export const isSetUp = (overview: TeamOverview) =>
  overview.setup.connections > 0 && overview.setup.groups > 0 && overview.setup.keys > 0 && overview.setup.firstRequestAt !== null;

/**
 * How often the overview refreshes. While the team's setup is incomplete it polls every
 * 2 s: the API has no push channel, and a new user who sends a first request from their
 * terminal must see it on the page within 5 s without reloading (one small query every
 * 2 s per open dashboard costs the server little). Once set up, every 15 s keeps this
 * month's figures current without that load. A demo team's sample usage, recorded in the
 * background, is followed every 2 s until its last day has landed.
 */
export const SETUP_POLL_MS = 2_000;
export const SET_UP_POLL_MS = 15_000;

export const teamOverviewQuery = (teamId: string) =>
  queryOptions({
    queryKey: overviewKeys.team(teamId),
    queryFn: ({ signal }) => apiData<TeamOverview>('GET', '/usage/team', { signal, query: { teamId }, fallback: 'Failed to fetch usage' }),
    refetchInterval: ({ state: { data } }) => (data && isSetUp(data) && data.demo?.state !== 'filling' ? SET_UP_POLL_MS : SETUP_POLL_MS),
  });
