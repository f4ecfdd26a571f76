/**
 * Applies core's role table to a caller: resolves their roles for a team, group, key,
 * connection or invitation (each looked up only through the caller's memberships) and
 * answers 404 when the object is not theirs to see, 403 when they may see it but not
 * do this.
 */
import { type Action, decide, ForbiddenError, type GroupRole, NotFoundError, type TeamRole } from '@spendgate/core';
import { findGroupForUser, findTeamRole, type SqlStore } from '@spendgate/store';

const FORBIDDEN: Partial<Record<Action, string>> = {
  'team.members.invite': 'Only team admins can invite members',
  'team.members.role': 'Only team admins can change member roles',
  'team.members.remove': 'Only team admins can remove members',
  'team.audit.view': 'Only team admins can read the audit log',
  'team.access.review': 'Only team admins can export the access review',
  'team.retention.manage': 'Only team admins can see and change data retention',
  'team.usage.view': "Only team admins can see the whole team's usage: ask for a group's",
  'connection.manage': 'Only team admins can manage provider connections',
  'pricing.manage': 'Only team admins can change pricing',
  'budget.manage': 'Only team admins can manage budgets',
  'gpu.manage': 'Only team admins can manage GPU settings, keys and exporters',
  'sso.manage': 'Only team admins can configure single sign-on',
  'group.update': 'Only group admins and maintainers can edit the group',
  'group.delete': 'Only group admins can delete the group',
  'group.members.manage': 'Only group admins can manage members and invitations',
  'group.keys.manage': 'Only group admins and maintainers can manage keys',
};

/** Throws unless the decision for this caller is `allowed`; `what` names the object for a 404. */
export function enforce(action: Action, roles: { teamRole: TeamRole | null; groupRole?: GroupRole | null }, what: string): void {
  const decision = decide(action, roles);
  if (decision === 'hidden') throw new NotFoundError(what);
  if (decision === 'forbidden') throw new ForbiddenError(FORBIDDEN[action]);
}

export function createAccess(deps: { sql: SqlStore }) {
  const { db } = deps.sql;
  return {
    /** The caller's team role, once they may do `action` in the team. */
    async team(teamId: string, userId: string, action: Action): Promise<TeamRole> {
      const teamRole = (await findTeamRole(db, teamId, userId)) ?? null;
      enforce(action, { teamRole }, 'Team');
      return teamRole!;
    },

    /** The group with the caller's roles, once they may do `action` in it. */
    async group(groupId: string, userId: string, action: Action) {
      const group = await findGroupForUser(db, groupId, userId);
      enforce(action, { teamRole: group?.teamRole ?? null, groupRole: group?.groupRole ?? null }, 'Synthetic group');
      return group!;
    },

    /** Once the caller may see a recorded request: who may view its group, or the team's usage for one without a group (the advisor's wording). */
    async request(event: { team_id: string; group_id: string | null }, userId: string): Promise<void> {
      if (event.group_id === null) await this.team(event.team_id, userId, 'team.usage.view');
      else await this.group(event.group_id, userId, 'group.view');
    },
  };
}

export type Access = ReturnType<typeof createAccess>;
