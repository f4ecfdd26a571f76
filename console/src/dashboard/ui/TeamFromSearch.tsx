/**
 * The team a team screen shows: the one in the URL's `?team=`, else the user's first, with
 * the picker that changes it (kept in the URL) and the states before it is known (teams
 * loading, failed to load, none yet).
 *
 * @example
 *   const { teams, team, teamRole, picker } = useTeamFromSearch();
 *   if (!team) return <TeamStates teams={teams} noTeam={{ icon: 'bell', text: 'Alerts belong to a team: …' }} />;
 */
import type { TeamRole } from '@spendgate/core';
import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { myTeamsQuery } from '../../api/team/queries.ts';
import type { Team } from '../../api/team/types.ts';
import type { IconName } from '../../shared/ui/Icon.tsx';
import { EmptyState } from './ScreenFrame.tsx';
import { ErrorState, LoadingState } from './States.tsx';
import { TeamPicker } from './TeamPicker.tsx';

export function useTeamFromSearch() {
  const navigate = useNavigate();
  const search = useSearch({ strict: false }) as { team?: unknown };
  const teams = useQuery(myTeamsQuery());
  const team = teams.data?.find((candidate) => candidate.id === search.team) ?? teams.data?.[0];
  const teamRole = (team?.role ?? null) as TeamRole | null;
  const picker = <TeamPicker teams={teams.data} teamId={team?.id} onPick={(id) => navigate({ to: '.', search: { team: id } as never, replace: true })} />;
  return { teams, team, teamRole, picker };
}

/**
 * What a team screen shows while its team is not known: the teams loading (`loading`
 * says what the screen is loading), failed to load (with Retry), or none yet (`noTeam`,
 * when the screen has no content of its own without a team).
 */
export function TeamStates({
  teams,
  loading = 'Loading your teams…',
  noTeam,
}: {
  teams: UseQueryResult<Team[]>;
  loading?: string;
  noTeam?: { icon: IconName; text: string };
}) {
  if (teams.isPending) return <LoadingState label={loading} />;
  if (teams.isError) return <ErrorState error={teams.error} title="Your teams could not be loaded" onRetry={() => teams.refetch()} retrying={teams.isFetching} />;
  if (noTeam === undefined) return null;
  return <EmptyState icon={noTeam.icon} title="No team yet" text={noTeam.text} />;
}
