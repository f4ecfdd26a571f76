// Synthetic-group mutations. Accepting an invitation needs a signed-in user (spec §5).
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { readToken } from '../../shared/session.ts';
import { apiData } from '../client.ts';
import { groupKeys } from './queries.ts';
import type { SyntheticGroup } from './types.ts';

export const NOT_SIGNED_IN_FOR_INVITE = 'Please log in to Continue!';

export const acceptInviteMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'accept-invite'],
    mutationFn: async (token: string) => {
      if (!readToken()) throw new Error(NOT_SIGNED_IN_FOR_INVITE);
      const answer = await apiData<{ group: SyntheticGroup }>('POST', '/synthetic-group/accept-invite', {
        body: { token },
        fallback: 'Failed to accept the invitation',
      });
      return answer.group;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groupKeys.all }),
  });
