// Key mutations: issue (the plaintext comes back once, in the mutation's result, and is
// never put in the query cache), change name or settings, revoke. Each refreshes the
// groups' queries, whose answers list the keys (spec §4: a deleted key leaves every group).
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { groupKeys } from '../groups/queries.ts';
import type { CreatedKey, IssuedKey, KeyChanges, NewKeyInput, RevokedKey } from './types.ts';

export const ISSUE_KEY_FAILED = 'Failed to create synthetic keys';
export const REVOKE_KEY_FAILED = 'Failed to delete connection';
export const UPDATE_KEY_FAILED = 'Failed to update key';

const refreshGroups = (queryClient: QueryClient) => () => queryClient.invalidateQueries({ queryKey: groupKeys.all });

export const issueKeyMutation = (queryClient: QueryClient, groupId: string) =>
  mutationOptions({
    mutationKey: ['keys', 'issue', groupId],
    mutationFn: (input: NewKeyInput) =>
      apiData<CreatedKey>('POST', `/synthetic-group/provider-key/create/${groupId}`, { body: input, fallback: ISSUE_KEY_FAILED }),
    onSuccess: refreshGroups(queryClient),
  });

export const updateKeyMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['keys', 'update'],
    mutationFn: ({ id, changes }: { id: string; changes: KeyChanges }) =>
      apiData<IssuedKey>('PATCH', `/synthetic-group/provider-key/${id}`, { body: changes, fallback: UPDATE_KEY_FAILED }),
    onSuccess: refreshGroups(queryClient),
  });

export const revokeKeyMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['keys', 'revoke'],
    mutationFn: (id: string) => apiData<RevokedKey>('DELETE', `/synthetic-group/provider-key/${id}`, { fallback: REVOKE_KEY_FAILED }),
    onSuccess: refreshGroups(queryClient),
  });
