/**
 * /dashboard/settings/team: the team (?team= picks one of yours, else the first) with its
 * members and roles, invitations by e-mail (and, for admins, those still pending), the
 * seats its plan includes and its budget, and for admins prompt capture, data retention (every
 * retention setting in one place), the access review export, the AI advisor's wording and
 * single sign-on (Enterprise).
 * A user without a team creates one or joins one with an invitation link (the onboarding
 * checklist links here).
 */
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { myTeamsQuery, teamMembersQuery } from '../../api/team/queries.ts';
import type { Team } from '../../api/team/types.ts';
import { useSession } from '../../shared/session.ts';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { TeamPicker } from '../ui/TeamPicker.tsx';
import { TeamBudget } from '../budgets/BudgetEntries.tsx';
import { InviteMemberForm, ROLE_LABELS } from './InviteMemberForm.tsx';
import { PendingInvitations } from './PendingInvitations.tsx';
import { AdvisorWordingSettings } from '../advisor/AdvisorWordingSettings.tsx';
import { AccessReviewExport } from './AccessReviewExport.tsx';
import { DataRetentionSettings } from './DataRetentionSettings.tsx';
import { PromptCaptureSettings } from './PromptCaptureSettings.tsx';
import { SeatUsage } from './SeatUsage.tsx';
import { SsoSettings } from './SsoSettings.tsx';
import { TeamMembers } from './TeamMembers.tsx';
import { CreateTeamForm, JoinTeamForm } from './TeamSetup.tsx';
import { isTeamRole } from './validation.ts';
import '../../styles/settings.css';

const TITLE = 'Team';

export function TeamScreen() {
  const { team: requestedTeam } = useSearch({ strict: false });
  const navigate = useNavigate();
  const teams = useQuery(myTeamsQuery());
  const open = (team: Team) => navigate({ to: '/dashboard/settings/team', search: { team: team.id } });

  if (teams.isPending) {
    return (
      <ScreenFrame title={TITLE} description="Your team's members, roles, seats and budget.">
        <LoadingState label="Loading your teams…" />
      </ScreenFrame>
    );
  }
  if (teams.isError) {
    return (
      <ScreenFrame title={TITLE} description="Your team's members, roles, seats and budget.">
        <ErrorState error={teams.error} onRetry={() => teams.refetch()} retrying={teams.isRefetching} />
      </ScreenFrame>
    );
  }
  const team = teams.data.find((candidate) => candidate.id === requestedTeam) ?? teams.data[0];
  if (!team) {
    return (
      <ScreenFrame title={TITLE} description="You are not in a team yet. Create one, or join the team that invited you.">
        <div className="team-setup">
          <CreateTeamForm onCreated={open} />
          <JoinTeamForm onJoined={open} />
        </div>
      </ScreenFrame>
    );
  }
  return <TeamDetails team={team} teams={teams.data} onOpen={open} />;
}

function TeamDetails({ team, teams, onOpen }: { team: Team; teams: Team[]; onOpen: (team: Team) => void }) {
  const session = useSession();
  const members = useQuery(teamMembersQuery(team.id));
  const [addingTeam, setAddingTeam] = useState(false);
  const isAdmin = team.role === 'ADMIN';

  return (
    <ScreenFrame
      title={team.name}
      description={team.description || `Your role: ${team.role && isTeamRole(team.role) ? ROLE_LABELS[team.role] : 'member'}.`}
      actions={
        <>
          <TeamPicker teams={teams} teamId={team.id} onPick={(id) => onOpen(teams.find((candidate) => candidate.id === id)!)} />
          <button type="button" className="button button--ghost" aria-expanded={addingTeam} onClick={() => setAddingTeam(!addingTeam)}>
            {addingTeam ? 'Close' : 'Create or join another team'}
          </button>
        </>
      }
    >
      <div className="team-layout">
        {addingTeam && (
          <div className="team-setup">
            <CreateTeamForm
              onCreated={(created) => {
                setAddingTeam(false);
                onOpen(created);
              }}
            />
            <JoinTeamForm
              onJoined={(joined) => {
                setAddingTeam(false);
                onOpen(joined);
              }}
            />
          </div>
        )}
        <SeatUsage teamId={team.id} />
        {isAdmin && <InviteMemberForm teamId={team.id} />}
        {isAdmin && <PendingInvitations teamId={team.id} />}
        {members.isPending ? (
          <LoadingState label="Loading members…" />
        ) : members.isError ? (
          <ErrorState error={members.error} onRetry={() => members.refetch()} retrying={members.isRefetching} />
        ) : (
          <TeamMembers teamId={team.id} members={members.data} canManage={isAdmin} currentUserId={session.user?.id} />
        )}
        <TeamBudget teamId={team.id} />
        {isAdmin && <PromptCaptureSettings teamId={team.id} />}
        {isAdmin && <DataRetentionSettings teamId={team.id} />}
        {isAdmin && <AccessReviewExport teamId={team.id} />}
        {isAdmin && <AdvisorWordingSettings teamId={team.id} />}
        {isAdmin && <SsoSettings teamId={team.id} />}
      </div>
    </ScreenFrame>
  );
}
