/**
 * The list of synthetic groups you can see: each with your role in it, its members and
 * keys, and its last 30 days (fewer when the plan looks back less) of requests and cost
 * in GBP; a search by name and, for someone in several teams, a team filter (each card
 * then names its team); a link to each group's details and to creating one.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { groupsQuery } from '../../api/groups/queries.ts';
import type { SyntheticGroup } from '../../api/groups/types.ts';
import { myTeamsQuery } from '../../api/team/queries.ts';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { costText, countText } from '../connections/format.ts';
import { RoleBadge } from './RoleBadge.tsx';
import { type GroupsSearch, groupDetailsSearch } from './search.ts';

export function GroupList({ search }: { search: GroupsSearch }) {
  const groups = useQuery(groupsQuery({ ...(search.search && { search: search.search }), ...(search.team && { teamId: search.team }) }));
  const teams = useQuery(myTeamsQuery());
  const navigate = useNavigate();
  const [typed, setTyped] = useState(search.search ?? '');
  /** Team names by id, when there are several teams to tell apart. */
  const teamNames = teams.data && teams.data.length > 1 ? new Map(teams.data.map((team) => [team.id, team.name])) : undefined;

  const filter = (next: GroupsSearch) => void navigate({ to: '/dashboard/synthetic-groups', search: next as never, replace: true });
  function find(event: FormEvent) {
    event.preventDefault();
    const text = typed.trim();
    filter({ ...(text && { search: text }), ...(search.team && { team: search.team }) });
  }

  return (
    <ScreenFrame
      title="Synthetic Groups"
      description="Usage grouped by team, product or customer, each with its own members and keys."
      actions={
        <Link to="/dashboard/addgroup" className="button button--primary">
          Add group
        </Link>
      }
    >
      <form className="group-search" aria-label="Search groups" onSubmit={find}>
        <label className="visually-hidden" htmlFor="group-search">
          Search groups
        </label>
        <input id="group-search" type="search" placeholder="Search groups by name" value={typed} maxLength={200} onChange={(event) => setTyped(event.target.value)} />
        <button type="submit" className="button button--ghost">
          Search
        </button>
        {teamNames && (
          <>
            <label className="visually-hidden" htmlFor="group-team-filter">
              Team
            </label>
            <select
              id="group-team-filter"
              value={search.team ?? ''}
              onChange={(event) => filter({ ...(search.search && { search: search.search }), ...(event.target.value && { team: event.target.value }) })}
            >
              <option value="">All teams</option>
              {[...teamNames].map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </select>
          </>
        )}
      </form>
      {groups.isPending ? (
        <LoadingState label="Loading groups…" />
      ) : groups.isError ? (
        <ErrorState error={groups.error} onRetry={() => groups.refetch()} retrying={groups.isFetching} />
      ) : groups.data.length === 0 ? (
        search.search || search.team ? (
          <EmptyState icon="layers" title="No groups found" text={search.search ? `No group you can see matches “${search.search}”.` : 'No group you can see is in this team.'} />
        ) : (
          <EmptyState
            icon="layers"
            title="No groups yet"
            text="Create a group to attribute spend and issue keys to it, or accept an invitation to one."
            action={
              <Link to="/dashboard/addgroup" className="button button--primary">
                Create a group
              </Link>
            }
          />
        )
      ) : (
        <ul className="group-list" aria-label="Synthetic groups">
          {groups.data.map((group) => (
            <GroupCard key={group.id} group={group} teamName={teamNames?.get(group.teamId)} />
          ))}
        </ul>
      )}
    </ScreenFrame>
  );
}

function GroupCard({ group, teamName }: { group: SyntheticGroup; teamName: string | undefined }) {
  return (
    <li className="group-card">
      <div className="group-card__head">
        <h2 className="group-card__name">
          <Link to="/dashboard/synthetic-groups" search={groupDetailsSearch(group.id) as never}>
            {group.name}
          </Link>
        </h2>
        <RoleBadge role={group.role} />
      </div>
      {teamName && <p className="group-card__team">{`Team: ${teamName}`}</p>}
      {group.description && <p className="group-card__description">{group.description}</p>}
      <dl className="group-card__figures">
        <div>
          <dt>Members</dt>
          <dd>{countText(group.syntheticGroupUsers.length)}</dd>
        </div>
        <div>
          <dt>Keys</dt>
          <dd>{countText(group.syntheticGroupProviderKeys.length)}</dd>
        </div>
        <div>
          <dt>{`Requests (${rangeDays(group.usage)} days)`}</dt>
          <dd>{countText(group.usage.requests)}</dd>
        </div>
        <div>
          <dt>{`Cost (${rangeDays(group.usage)} days)`}</dt>
          <dd>{costText(group.usage.totalCostMicros, group.usage.currency)}</dd>
        </div>
      </dl>
    </li>
  );
}

/** How many days a usage answer covers (both ends included): 30, or the plan's look-back when shorter. */
const rangeDays = (usage: { startDate: string; endDate: string }) => Math.round((Date.parse(usage.endDate) - Date.parse(usage.startDate)) / 86_400_000) + 1;
