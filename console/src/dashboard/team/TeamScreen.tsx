/**
 * /dashboard/settings/team: the team (?team= picks one of yours, else the first) in
 * sections that a sub-navigation beside them (above them on a phone) links to: Members
 * (seats, invitations by e-mail and, for admins, those still pending, the members and
 * their roles) and Budget for everyone; for admins also Capture & retention (prompt
 * capture, every retention setting in one place), Access review (its export), AI advisor
 * (its wording) and Single sign-on (Enterprise).
 * A user without a team creates one or joins one with an invitation link (the onboarding
 * checklist links here).
 */
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type ReactNode, useState } from 'react';
import { myTeamsQuery, teamMembersQuery } from '../../api/team/queries.ts';
import type { Team } from '../../api/team/types.ts';
import { useSession } from '../../shared/session.ts';
import { AdvisorWordingSettings } from '../advisor/AdvisorWordingSettings.tsx';
import { TeamBudget } from '../budgets/BudgetEntries.tsx';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { TeamPicker } from '../ui/TeamPicker.tsx';
import { AccessReviewExport } from './AccessReviewExport.tsx';
import { DataRetentionSettings } from './DataRetentionSettings.tsx';
import { InviteMemberForm, ROLE_LABELS } from './InviteMemberForm.tsx';
import { PendingInvitations } from './PendingInvitations.tsx';
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

/** The screen's sections in order, as the sub-navigation names them; members see the first two. */
const SECTIONS = [
  { id: 'members', label: 'Members', adminOnly: false },
  { id: 'budget', label: 'Budget', adminOnly: false },
  { id: 'data', label: 'Capture & retention', adminOnly: true },
  { id: 'access-review', label: 'Access review', adminOnly: true },
  { id: 'advisor', label: 'AI advisor', adminOnly: true },
  { id: 'sso', label: 'Single sign-on', adminOnly: true },
] as const;

type SectionId = (typeof SECTIONS)[number]['id'];

const sectionAnchor = (id: SectionId) => `team-${id}`;

/** One section's panels, the sub-navigation's link target. */
function TeamSection({ id, children }: { id: SectionId; children: ReactNode }) {
  return (
    <div id={sectionAnchor(id)} className="team-section">
      {children}
    </div>
  );
}

function TeamDetails({ team, teams, onOpen }: { team: Team; teams: Team[]; onOpen: (team: Team) => void }) {
  const session = useSession();
  const members = useQuery(teamMembersQuery(team.id));
  const [addingTeam, setAddingTeam] = useState(false);
  const isAdmin = team.role === 'ADMIN';
  const sections = SECTIONS.filter((section) => isAdmin || !section.adminOnly);

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
        <div className="team-sections">
          <nav className="team-sections__nav" aria-label="Team settings">
            <ul>
              {sections.map((section) => (
                <li key={section.id}>
                  <a href={`#${sectionAnchor(section.id)}`}>{section.label}</a>
                </li>
              ))}
            </ul>
          </nav>
          <div className="team-sections__body">
            <TeamSection id="members">
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
            </TeamSection>
            <TeamSection id="budget">
              <TeamBudget teamId={team.id} />
            </TeamSection>
            {isAdmin && (
              <>
                <TeamSection id="data">
                  <PromptCaptureSettings teamId={team.id} />
                  <DataRetentionSettings teamId={team.id} />
                </TeamSection>
                <TeamSection id="access-review">
                  <AccessReviewExport teamId={team.id} />
                </TeamSection>
                <TeamSection id="advisor">
                  <AdvisorWordingSettings teamId={team.id} />
                </TeamSection>
                <TeamSection id="sso">
                  <SsoSettings teamId={team.id} />
                </TeamSection>
              </>
            )}
          </div>
        </div>
      </div>
    </ScreenFrame>
  );
}
