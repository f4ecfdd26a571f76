// Connection mutations (spec §7) and their effect on the cached list (spec §4, transitions.ts).
// A self-hosted endpoint (BYOM, provider "openai-compatible") is created with POST /provider,
// which takes it without an API key; every other provider with POST /provider/connections.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { connectionKeys } from './queries.ts';
import { addConnection, applyStatus, removeConnection, replaceConnection } from './transitions.ts';
import type { Connection, ConnectionChanges, ConnectionStatus, ConnectionTested, ConnectionTestInput, ListedConnection, NewConnectionInput } from './types.ts';

/** The registry id of a team's own OpenAI-compatible model server. */
export const BYOM_PROVIDER = 'openai-compatible';

const setList = (queryClient: QueryClient, change: (list: ListedConnection[] | undefined) => ListedConnection[] | undefined) =>
  queryClient.setQueryData<ListedConnection[]>(connectionKeys.list(), change);

export const createConnectionMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['connections', 'create'],
    mutationFn: async (input: NewConnectionInput): Promise<Connection> => {
      if (input.provider === BYOM_PROVIDER) {
        const { teamId, name, baseUrl, apiKey } = input;
        return apiData<Connection>('POST', '/provider', { body: { teamId, name, baseUrl, ...(apiKey ? { apiKey } : {}) }, fallback: 'Failed to create provider' });
      }
      const answer = await apiData<{ newConnection: Connection }>('POST', '/provider/connections', { body: input, fallback: 'Failed to create connection' });
      return answer.newConnection;
    },
    onSuccess: (created) => {
      setList(queryClient, (list) => addConnection(list, created));
      return queryClient.invalidateQueries({ queryKey: connectionKeys.list() });
    },
  });

export const updateConnectionMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['connections', 'update'],
    mutationFn: ({ id, changes }: { id: string; changes: ConnectionChanges }) =>
      apiData<Connection>('PUT', `/provider/connections/${id}`, { body: changes, fallback: 'Failed to update connection' }),
    onSuccess: (updated) => setList(queryClient, (list) => replaceConnection(list, updated)),
  });

export const setConnectionStatusMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['connections', 'status'],
    mutationFn: ({ id, status }: { id: string; status: ConnectionStatus }) =>
      apiData<{ id: string; status: ConnectionStatus }>('PATCH', `/provider/connections/status/${id}`, {
        body: { statusValue: status },
        fallback: 'Failed to update connection status',
      }),
    onSuccess: (changed) => setList(queryClient, (list) => applyStatus(list, changed)),
  });

export const deleteConnectionMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['connections', 'delete'],
    mutationFn: (id: string) => apiData<{ id: string }>('DELETE', `/provider/connections/${id}`, { fallback: 'Failed to delete connection' }),
    onSuccess: ({ id }) => {
      setList(queryClient, (list) => removeConnection(list, id));
      queryClient.removeQueries({ queryKey: [...connectionKeys.all, 'usage', id] });
    },
  });

/** A cheap live call with the settings (or a stored connection); nothing is saved. */
export const testConnectionMutation = () =>
  mutationOptions({
    mutationKey: ['connections', 'test'],
    mutationFn: (input: ConnectionTestInput) => apiData<ConnectionTested>('POST', '/provider/test/connection', { body: input, fallback: 'Failed to verify connection' }),
  });
