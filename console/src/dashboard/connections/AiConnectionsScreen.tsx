/**
 * /dashboard/ai-connection: the provider accounts the user's teams route requests to.
 * Each connection shows its provider, name, status, masked key and, to its team's
 * admins, this month's requests and cost (GBP) and its usage over a range; team admins add (with a live test first), edit, enable or disable
 * and delete them. The open connection, the form shown and the usage range are URL
 * state (`connection`, `mode`, `from`, `to`), so a link or a reload keeps them.
 */
import { decide, type TeamRole } from '@spendgate/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { deleteConnectionMutation, setConnectionStatusMutation } from '../../api/connections/mutations.ts';
import { connectionsQuery, type DateRange, providersQuery } from '../../api/connections/queries.ts';
import type { ListedConnection, Provider } from '../../api/connections/types.ts';
import { myTeamsQuery } from '../../api/team/queries.ts';
import type { Team } from '../../api/team/types.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { ConnectionForm } from './ConnectionForm.tsx';
import { ConnectionUsagePanel } from './ConnectionUsagePanel.tsx';
import { costText, countText } from './format.ts';
import { rangeFrom } from './usage-range.ts';
import './connections.css';
import { Badge } from '../ui/Badge.tsx';

interface ScreenSearch {
  connection?: string;
  mode?: 'new' | 'edit';
  from?: string;
  to?: string;
}

function readSearch(search: Record<string, unknown>): ScreenSearch {
  return {
    ...(typeof search.connection === 'string' ? { connection: search.connection } : {}),
    ...(search.mode === 'new' || search.mode === 'edit' ? { mode: search.mode } : {}),
    ...(typeof search.from === 'string' ? { from: search.from } : {}),
    ...(typeof search.to === 'string' ? { to: search.to } : {}),
  };
}

const mayManage = (team: Team | undefined) => Boolean(team?.role) && decide('connection.manage', { teamRole: team?.role as TeamRole }) === 'allowed';
/** Usage through a connection is the team's: its admins see it. */
const mayViewUsage = (team: Team | undefined) => Boolean(team?.role) && decide('team.usage.view', { teamRole: team?.role as TeamRole }) === 'allowed';

export function AiConnectionsScreen() {
  const search = readSearch(useSearch({ strict: false }) as Record<string, unknown>);
  const navigate = useNavigate();
  const go = (next: ScreenSearch) => navigate({ to: '/dashboard/ai-connection', search: next as never, replace: true, resetScroll: false });
  const queryClient = useQueryClient();
  const connections = useQuery(connectionsQuery());
  const providers = useQuery(providersQuery());
  const teams = useQuery(myTeamsQuery());
  const setStatus = useMutation(setConnectionStatusMutation(queryClient));
  const remove = useMutation(deleteConnectionMutation(queryClient));
  const [deleting, setDeleting] = useState<ListedConnection | null>(null);

  const manageableTeams = (teams.data ?? []).filter(mayManage);
  const teamOf = (connection: ListedConnection) => teams.data?.find((team) => team.id === connection.teamId);
  const providerOf = (connection: ListedConnection): Provider | undefined => providers.data?.find((provider) => provider.id === connection.provider);
  const range = rangeFrom(search);
  const setRange = (next: DateRange) => go({ ...search, from: next.startDate, to: next.endDate });
  const open = connections.data?.find((connection) => connection.id === search.connection);

  const addButton =
    manageableTeams.length > 0 && search.mode !== 'new' ? (
      <button type="button" className="button button--primary" onClick={() => go({ mode: 'new' })}>
        Add connection
      </button>
    ) : undefined;

  const body = () => {
    if (connections.isPending || teams.isPending || providers.isPending) return <LoadingState label="Loading connections…" />;
    const list = connections.data;
    const myTeams = teams.data;
    if (!list || !myTeams || !providers.data) {
      return (
        <ErrorState
          error={connections.error ?? teams.error ?? providers.error}
          title="Connections could not be loaded"
          retrying={connections.isFetching || teams.isFetching || providers.isFetching}
          onRetry={() => Promise.all([connections.refetch(), teams.refetch(), providers.refetch()])}
        />
      );
    }
    const form =
      search.mode === 'new' && manageableTeams.length > 0 ? (
        <ConnectionForm
          providers={providers.data ?? []}
          teams={manageableTeams}
          onCancel={() => go({})}
          onSaved={(created) => go({ connection: created.id })}
        />
      ) : null;
    if (list.length === 0) {
      return (
        <>
          {form}
          {!form && (
            <EmptyState
              icon="plug"
              title="No connections yet"
              text={
                myTeams.length === 0
                  ? 'Connections belong to a team: create or join one first.'
                  : manageableTeams.length > 0
                    ? 'Add an API key for OpenAI, Anthropic, Gemini, Azure OpenAI or your own model endpoint.'
                    : 'A team admin adds the provider accounts your team uses; they will show here.'
              }
              action={
                myTeams.length === 0 ? (
                  <Link to="/dashboard/settings/team" className="button button--primary">
                    Set up your team
                  </Link>
                ) : (
                  addButton
                )
              }
            />
          )}
        </>
      );
    }
    return (
      <>
        {form}
        <ul className="connection-list" aria-label="Connections">
          {list.map((connection) => {
            const provider = providerOf(connection);
            const manage = mayManage(teamOf(connection));
            const isOpen = open?.id === connection.id;
            const changingStatus = setStatus.isPending && setStatus.variables?.id === connection.id;
            const statusError = setStatus.isError && setStatus.variables?.id === connection.id ? setStatus.error.message : undefined;
            const enabled = connection.status === 'active';
            return (
              <li key={connection.id} className={`connection-card${isOpen ? ' connection-card--open' : ''}`}>
                <article aria-labelledby={`connection-${connection.id}`}>
                  <header className="connection-card__header">
                    <div>
                      <p className="connection-card__provider">{provider?.name ?? connection.provider}</p>
                      <h2 id={`connection-${connection.id}`} className="connection-card__name">
                        {connection.name}
                      </h2>
                    </div>
                    <Badge tone={enabled ? 'good' : 'neutral'}>{enabled ? 'Active' : 'Disabled'}</Badge>
                  </header>
                  <dl className="connection-card__facts">
                    <div>
                      <dt>API key</dt>
                      <dd className="connection-card__mono">{connection.apiKeyTail || 'none'}</dd>
                    </div>
                    {connection.thisMonth && (
                      <>
                        <div>
                          <dt>Requests this month</dt>
                          <dd>{countText(connection.thisMonth.requests)}</dd>
                        </div>
                        <div>
                          <dt>Cost this month</dt>
                          <dd>{costText(connection.thisMonth.totalCostMicros, connection.thisMonth.currency)}</dd>
                        </div>
                      </>
                    )}
                    <div className="connection-card__url">
                      <dt>Base URL</dt>
                      <dd className="connection-card__mono">{connection.baseUrl}</dd>
                    </div>
                  </dl>
                  {connection.baseUrlProblem && (
                    <p className="alert alert--error" role="alert">
                      Requests through this connection are refused: its base URL {connection.baseUrlProblem}.
                    </p>
                  )}
                  {myTeams.length > 1 && <p className="connection-card__team">Team: {teamOf(connection)?.name}</p>}
                  {statusError && (
                    <p className="alert alert--error" role="alert">
                      {statusError}
                    </p>
                  )}
                  <div className="connection-card__actions">
                    <button type="button" className="button button--ghost button--small" aria-expanded={isOpen} onClick={() => go(isOpen ? {} : { connection: connection.id })}>
                      {isOpen ? 'Hide usage' : 'Usage'}
                    </button>
                    {manage && (
                      <>
                        <button type="button" className="button button--ghost button--small" onClick={() => go({ connection: connection.id, mode: 'edit' })}>
                          Edit
                        </button>
                        <button
                          type="button"
                          className="button button--ghost button--small"
                          disabled={changingStatus}
                          onClick={() => setStatus.mutate({ id: connection.id, status: enabled ? 'disabled' : 'active' })}
                        >
                          {changingStatus ? (enabled ? 'Disabling…' : 'Enabling…') : enabled ? 'Disable' : 'Enable'}
                        </button>
                        <button type="button" className="button button--ghost button--small button--danger-text" onClick={() => setDeleting(connection)}>
                          Delete
                        </button>
                      </>
                    )}
                  </div>
                  {isOpen && search.mode === 'edit' && manage && (
                    <ConnectionForm
                      providers={providers.data ?? []}
                      teams={manageableTeams}
                      connection={connection}
                      onCancel={() => go({ connection: connection.id })}
                      onSaved={() => go({ connection: connection.id })}
                    />
                  )}
                  {isOpen && mayViewUsage(teamOf(connection)) && <ConnectionUsagePanel connection={connection} range={range} onRange={setRange} />}
                </article>
              </li>
            );
          })}
        </ul>
      </>
    );
  };

  return (
    <ScreenFrame title="AI Connections" description="The provider accounts your team routes requests to." actions={addButton}>
      {body()}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete connection"
          destructive
          busy={remove.isPending}
          error={remove.error?.message}
          onCancel={() => {
            remove.reset();
            setDeleting(null);
          }}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: ({ id }) => {
                setDeleting(null);
                if (search.connection === id) go({});
              },
            })
          }
        >
          Keys issued on this connection stop working at once. Its usage history is kept.
        </ConfirmDialog>
      )}
    </ScreenFrame>
  );
}
