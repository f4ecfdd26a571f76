/**
 * Single sign-on's rules, pure: what a team role and group roles a person's IdP groups give
 * under a team's mapping, which e-mail domains an IdP may own, and what password sign-in
 * answers for an address whose domain signs in through its IdP.
 *
 * @example
 *   ssoRoles({ mappings: [{ idpGroup: 'eng', teamRole: 'MEMBER', groupId: 'g1', groupRole: 'MAINTAINER' }], defaultTeamRole: null }, ['eng'])
 *   // { teamRole: 'MEMBER', groupRoles: Map { 'g1' => 'MAINTAINER' } }
 */
import { GROUP_ROLES, type GroupRole, TEAM_ROLES, type TeamRole } from './roles.ts';

/** What password sign-in, registration and password reset answer for an address of an enforced domain. */
export const SSO_REQUIRED_MESSAGE = 'Your organisation signs in with single sign-on. Use “Sign in with SSO”.';

export interface SsoMapping {
  idpGroup: string;
  teamRole: TeamRole;
  groupId: string | null;
  groupRole: GroupRole | null;
}

/**
 * Mail providers anyone can have an address at: no organisation owns them, so no IdP may
 * claim them (it would sign in, or lock out, strangers).
 */
export const PUBLIC_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'aol.com',
  'gmail.com',
  'gmx.com',
  'gmx.de',
  'googlemail.com',
  'hey.com',
  'hotmail.co.uk',
  'hotmail.com',
  'icloud.com',
  'live.com',
  'mail.com',
  'me.com',
  'msn.com',
  'outlook.com',
  'pm.me',
  'proton.me',
  'protonmail.com',
  'qq.com',
  'yahoo.co.uk',
  'yahoo.com',
  'yandex.com',
  'zoho.com',
]);

/** The domain of an e-mail address, lower case. */
export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

const stronger = <Role extends string>(order: readonly Role[], a: Role | null, b: Role): Role => (a === null || order.indexOf(b) < order.indexOf(a) ? b : a);

/**
 * The roles a person's IdP groups give: the strongest team role of every mapping they match
 * (else the default, which may be none: not let in), and for each team group some mapping
 * names, the strongest role they match there, or null (not a member of it) when none.
 */
export function ssoRoles(rules: { mappings: readonly SsoMapping[]; defaultTeamRole: TeamRole | null }, idpGroups: readonly string[]) {
  const held = new Set(idpGroups);
  let teamRole: TeamRole | null = null;
  const groupRoles = new Map<string, GroupRole | null>();
  for (const mapping of rules.mappings) {
    if (mapping.groupId !== null && !groupRoles.has(mapping.groupId)) groupRoles.set(mapping.groupId, null);
    if (!held.has(mapping.idpGroup)) continue;
    teamRole = stronger(TEAM_ROLES, teamRole, mapping.teamRole);
    if (mapping.groupId !== null && mapping.groupRole !== null) groupRoles.set(mapping.groupId, stronger(GROUP_ROLES, groupRoles.get(mapping.groupId) ?? null, mapping.groupRole));
  }
  return { teamRole: teamRole ?? rules.defaultTeamRole, groupRoles };
}
