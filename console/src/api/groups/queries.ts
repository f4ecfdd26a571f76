// Synthetic-group queries and their keys: the list (GET /synthetic-group), one group with
// its members, keys and usage (GET /synthetic-group/{id}), its invitations and its usage
// over a date range. Keys nest under ['groups'] so one prefix invalidates them all.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { UsageTotals } from '../usage/types.ts';
import type { GroupInvitation, SyntheticGroup } from './types.ts';

export interface GroupListFilter {
  search?: string;
  teamId?: string;
}

/** A date range as the usage calls take it (yyyy-mm-dd, both inclusive); empty: the last 30 days. */
export interface UsageRange {
  startDate?: string;
  endDate?: string;
}

export const groupKeys = {
  all: ['groups'] as const,
  lists: () => [...groupKeys.all, 'list'] as const,
  list: (filter: GroupListFilter) => [...groupKeys.lists(), filter] as const,
  details: () => [...groupKeys.all, 'detail'] as const,
  detail: (groupId: string) => [...groupKeys.details(), groupId] as const,
  invitations: (groupId: string) => [...groupKeys.all, 'invitations', groupId] as const,
  usage: (groupId: string, range: UsageRange) => [...groupKeys.all, 'usage', groupId, range] as const,
};

export const groupsQuery = (filter: GroupListFilter = {}) =>
  queryOptions({
    queryKey: groupKeys.list(filter),
    queryFn: ({ signal }) => apiData<SyntheticGroup[]>('GET', '/synthetic-group', { query: { ...filter }, signal, fallback: 'Failed to fetch groups' }),
  });

export const groupQuery = (groupId: string) =>
  queryOptions({
    queryKey: groupKeys.detail(groupId),
    queryFn: ({ signal }) => apiData<SyntheticGroup>('GET', `/synthetic-group/${encodeURIComponent(groupId)}`, { signal, fallback: 'Failed to fetch group' }),
  });

export const groupInvitationsQuery = (groupId: string) =>
  queryOptions({
    queryKey: groupKeys.invitations(groupId),
    queryFn: ({ signal }) =>
      apiData<GroupInvitation[]>('GET', `/synthetic-group/${encodeURIComponent(groupId)}/invitations`, { signal, fallback: 'Failed to fetch invitations' }),
  });

export const groupUsageQuery = (groupId: string, range: UsageRange) =>
  queryOptions({
    queryKey: groupKeys.usage(groupId, range),
    queryFn: ({ signal }) =>
      apiData<UsageTotals>('GET', `/synthetic-group/${encodeURIComponent(groupId)}/usage`, { query: { ...range }, signal, fallback: 'Failed to fetch group usage' }),
  });
