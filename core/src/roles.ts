/**
 * Who may do what (spec §6), as one table. Team roles: ADMIN, MEMBER. Group roles:
 * ADMIN (everything in the group), MAINTAINER (edit the group and manage its keys, no
 * member changes), OBSERVER (view only). A team ADMIN acts as ADMIN in every group of
 * the team; a team MEMBER sees only the groups they belong to.
 *
 * An answer is `allowed`, `forbidden` (the caller can see the object but not do this:
 * 403) or `hidden` (the caller has no role there, so the object does not exist for
 * them: 404 — never another tenant's data).
 *
 * @example
 *   decide('group.keys.manage', { teamRole: 'MEMBER', groupRole: 'MAINTAINER' }) // 'allowed'
 *   decide('group.delete', { teamRole: 'MEMBER', groupRole: 'MAINTAINER' })      // 'forbidden'
 *   decide('group.view', { teamRole: 'MEMBER', groupRole: null })                // 'hidden'
 */
export const TEAM_ROLES = ['ADMIN', 'MEMBER'] as const;
export const GROUP_ROLES = ['ADMIN', 'MAINTAINER', 'OBSERVER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
export type GroupRole = (typeof GROUP_ROLES)[number];

type Rule = { scope: 'team'; roles: readonly TeamRole[] } | { scope: 'group'; roles: readonly GroupRole[] };

export const PERMISSIONS = {
  'team.members.view': { scope: 'team', roles: ['ADMIN', 'MEMBER'] },
  'team.members.invite': { scope: 'team', roles: ['ADMIN'] },
  'team.members.role': { scope: 'team', roles: ['ADMIN'] },
  'team.members.remove': { scope: 'team', roles: ['ADMIN'] },
  'team.audit.view': { scope: 'team', roles: ['ADMIN'] },
  'team.usage.view': { scope: 'team', roles: ['ADMIN'] },
  'team.settings.manage': { scope: 'team', roles: ['ADMIN'] },
  'team.access.review': { scope: 'team', roles: ['ADMIN'] },
  'team.retention.manage': { scope: 'team', roles: ['ADMIN'] },
  'connection.view': { scope: 'team', roles: ['ADMIN', 'MEMBER'] },
  'connection.manage': { scope: 'team', roles: ['ADMIN'] },
  'pricing.view': { scope: 'team', roles: ['ADMIN', 'MEMBER'] },
  'pricing.manage': { scope: 'team', roles: ['ADMIN'] },
  'budget.view': { scope: 'team', roles: ['ADMIN', 'MEMBER'] },
  'budget.manage': { scope: 'team', roles: ['ADMIN'] },
  'gpu.view': { scope: 'team', roles: ['ADMIN', 'MEMBER'] },
  'gpu.manage': { scope: 'team', roles: ['ADMIN'] },
  'sso.manage': { scope: 'team', roles: ['ADMIN'] },
  'group.create': { scope: 'team', roles: ['ADMIN', 'MEMBER'] },
  'group.view': { scope: 'group', roles: ['ADMIN', 'MAINTAINER', 'OBSERVER'] },
  'group.update': { scope: 'group', roles: ['ADMIN', 'MAINTAINER'] },
  'group.delete': { scope: 'group', roles: ['ADMIN'] },
  'group.members.manage': { scope: 'group', roles: ['ADMIN'] },
  'group.keys.manage': { scope: 'group', roles: ['ADMIN', 'MAINTAINER'] },
} as const satisfies Record<string, Rule>;

export type Action = keyof typeof PERMISSIONS;
export type Decision = 'allowed' | 'forbidden' | 'hidden';

export interface Access {
  /** The caller's role in the object's team; null when not a member. */
  teamRole: TeamRole | null;
  /** The caller's role in the object's group (group actions only). */
  groupRole?: GroupRole | null;
}

/** The caller's role in a group: a team ADMIN is ADMIN everywhere in the team. */
export function effectiveGroupRole(access: Access): GroupRole | null {
  if (access.teamRole === null) return null;
  if (access.teamRole === 'ADMIN') return 'ADMIN';
  return access.groupRole ?? null;
}

export function decide(action: Action, access: Access): Decision {
  const rule: Rule = PERMISSIONS[action];
  const role = rule.scope === 'team' ? access.teamRole : effectiveGroupRole(access);
  if (role === null) return 'hidden';
  return (rule.roles as readonly string[]).includes(role) ? 'allowed' : 'forbidden';
}
