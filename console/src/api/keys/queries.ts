// A group's keys, read from the group's answer (GET /synthetic-group/{id}) under the same
// cache entry as the groups' groupQuery, with the keys typed in full here.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { groupKeys } from '../groups/queries.ts';
import type { GroupWithKeys } from './types.ts';

export const groupKeysQuery = (groupId: string) =>
  queryOptions({
    queryKey: groupKeys.detail(groupId),
    queryFn: ({ signal }) => apiData<GroupWithKeys>('GET', `/synthetic-group/${encodeURIComponent(groupId)}`, { signal, fallback: 'Failed to fetch group' }),
  });
