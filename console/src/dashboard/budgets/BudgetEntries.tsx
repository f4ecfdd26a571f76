/**
 * Where budgets appear: on a synthetic group (its details view), on a key (its details in
 * the group's key list) and on the team (the team settings screen). Anyone in the team
 * sees them; team admins manage them (core's 'budget.manage').
 *
 * @example <GroupBudget groupId={group.id} role={group.role} />
 * @example <TeamBudget teamId={team.id} />
 */
import { useQuery } from '@tanstack/react-query';
import { groupKeysQuery } from '../../api/keys/queries.ts';
import { myTeamsQuery } from '../../api/team/queries.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { BudgetPanel } from './BudgetPanel.tsx';

/** Whether the signed-in user is an admin of the team (who may manage its budgets). */
function useIsTeamAdmin(teamId: string | undefined): boolean {
  const teams = useQuery(myTeamsQuery());
  return teamId !== undefined && teams.data?.find((team) => team.id === teamId)?.role === 'ADMIN';
}

export function GroupBudget({ groupId, role }: { groupId: string; role: string | null }) {
  const group = useQuery(groupKeysQuery(groupId));
  const isTeamAdmin = useIsTeamAdmin(group.data?.teamId);
  if (group.isPending) return <LoadingState label="Loading budgets…" />;
  if (group.isError) return <ErrorState error={group.error} onRetry={() => group.refetch()} retrying={group.isFetching} />;
  // A team admin is the admin of every group; an observer only reads, whatever the team says.
  return (
    <div className="budget-panel">
      <BudgetPanel target={{ scope: 'group', scopeId: groupId }} title="Group budgets" canManage={isTeamAdmin && role === 'ADMIN'} />
    </div>
  );
}

export function KeyBudget({ keyId, keyName, canManage }: { keyId: string; keyName: string; canManage: boolean }) {
  return <BudgetPanel target={{ scope: 'key', scopeId: keyId }} title={`Budgets on ${keyName}`} canManage={canManage} />;
}

/** The team's budgets; `teamId` defaults to the user's first team. */
export function TeamBudget({ teamId }: { teamId?: string }) {
  const teams = useQuery(myTeamsQuery());
  if (teams.isPending) return <LoadingState label="Loading budgets…" />;
  if (teams.isError) return <ErrorState error={teams.error} onRetry={() => teams.refetch()} retrying={teams.isFetching} />;
  const team = teamId ? teams.data.find((candidate) => candidate.id === teamId) : teams.data[0];
  if (!team) return null;
  return (
    <div className="budget-panel">
      <BudgetPanel target={{ scope: 'team', scopeId: team.id }} title="Team budgets" canManage={team.role === 'ADMIN'} />
    </div>
  );
}
