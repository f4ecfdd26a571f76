// Synthetic groups as /api/synthetic-group answers them (spec §3: a group with its
// syntheticGroupUsers and syntheticGroupProviderKeys and a usage record; invitations with
// their syntheticGroupId), and what a member may do in a group, read from core's role
// table (spec §6).
import { type Action, decide, GROUP_ROLES, type GroupRole } from '@spendgate/core';
import type { UsageTotals } from '../usage/types.ts';

export { GROUP_ROLES, type GroupRole };

/** How a role is written on screen. */
export const GROUP_ROLE_LABELS: Record<GroupRole, string> = { ADMIN: 'Admin', MAINTAINER: 'Maintainer', OBSERVER: 'Observer' };

export interface GroupMemberUser {
  id: string;
  email: string;
  name: string;
  avatar: string | null;
}

export interface GroupMember {
  user: GroupMemberUser;
  role: string;
  joinedAt: string;
}

/** A key issued for the group, as the group answer lists it (the keys screens read the rest). */
export interface GroupKeySummary {
  id: string;
  name: string;
  kind: string;
  prefix: string;
}

export interface SyntheticGroup {
  id: string;
  teamId: string;
  name: string;
  description: string;
  createdAt: string;
  /** Your effective role in the group (a team admin is ADMIN everywhere); null when you have none. */
  role: string | null;
  syntheticGroupUsers: GroupMember[];
  syntheticGroupProviderKeys: GroupKeySummary[];
  /** The last 30 days. */
  /** The last 30 days (from the plan's look-back when shorter). */
  usage: UsageTotals;
}

export interface AddedMembers {
  addedUsers: { user: GroupMemberUser; role: string }[];
}

export interface MemberRoleChanged {
  groupId: string;
  userId: string;
  role: string;
}

export interface MemberRemoved {
  groupId: string;
  userId: string;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface GroupInvitation {
  id: string;
  syntheticGroupId: string | null;
  email: string;
  role: string;
  status: InvitationStatus;
  expiresAt: string;
  createdAt: string;
}

/** What a group member may do, from their role (spec §6). */
export interface GroupPermissions {
  /** Edit the group's name and description (Admin, Maintainer). */
  edit: boolean;
  /** Delete the group (Admin). */
  delete: boolean;
  /** Add, remove and re-role members, and send, resend and revoke invitations (Admin). */
  manageMembers: boolean;
  /** Issue, change and revoke the group's keys (Admin, Maintainer). */
  manageKeys: boolean;
}

export const isGroupRole = (role: string | null): role is GroupRole => role !== null && (GROUP_ROLES as readonly string[]).includes(role);

/**
 * What your effective role in a group lets you do. The group answer's `role` already
 * counts a team admin as ADMIN, so it is the group role core's table decides on.
 *
 * @example groupPermissions('MAINTAINER') // { edit: true, delete: false, manageMembers: false, manageKeys: true }
 */
export function groupPermissions(role: string | null): GroupPermissions {
  const may = (action: Action) => isGroupRole(role) && decide(action, { teamRole: 'MEMBER', groupRole: role }) === 'allowed';
  return { edit: may('group.update'), delete: may('group.delete'), manageMembers: may('group.members.manage'), manageKeys: may('group.keys.manage') };
}
