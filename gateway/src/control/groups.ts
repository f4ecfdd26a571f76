/**
 * Synthetic groups: usage grouped by team, product or customer. Creating, listing,
 * editing and deleting groups; their members and roles; the keys issued for them; and
 * invitations by email. Roles come from core's table (via access); plan allowances
 * from the plan service; a key's settings are checked against what it can reach
 * (key-settings.ts); every change writes an audit row in its transaction, and a key
 * that stops working or changes is dropped from every gateway's key cache.
 */
import { randomUUID } from 'node:crypto';
import {
  ConflictError,
  effectiveGroupRole,
  ForbiddenError,
  type GroupRole,
  type KeySettingChange,
  type KeySettings,
  NotFoundError,
  ValidationError,
  withKeySettingChange,
} from '@spendgate/core';
import {
  countPendingTeamInvitations,
  type AuditEntry,
  type Db,
  deleteGroup,
  deleteGroupMember,
  findConnection,
  findInvitationForUser,
  findKeyForUser,
  findTeam,
  insertGroup,
  insertGroupMember,
  insertIssuedKey,
  type KeyCache,
  type KeyKind,
  listGroupInvitations,
  listGroupKeys,
  listGroupMembersWithUsers,
  listGroupsForUser,
  listLiveKeys,
  listTeamMembers,
  lockGroupMemberRole,
  lockKey,
  markInvitationAccepted,
  revokeInvitation,
  revokeKey,
  type SqlStore,
  updateGroup,
  updateGroupMemberRole,
  updateIssuedKey,
  writeAudit,
} from '@spendgate/store';
import { findProvider } from '../providers/registry.ts';
import { generateIssuedKey } from '../security/issued-keys.ts';
import { type Access, enforce } from './access.ts';
import { type Invitations, invitationStatus } from './invitations.ts';
import type { KeySettingsCheck } from './key-settings.ts';
import type { PlanService } from './plans.ts';
import type { TeamService } from './teams.ts';
import type { UsageAnalytics } from './usage-analytics.ts';

type Member = Awaited<ReturnType<typeof listGroupMembersWithUsers>>[number];
type GroupRow = { id: string; team_id: string; name: string; description: string; created_at: Date };

const memberView = (member: Member) => ({
  user: { id: member.id, email: member.email, name: member.name, avatar: member.avatar },
  role: member.role,
  joinedAt: member.joined_at,
});

type ListedKeyRow = Awaited<ReturnType<typeof listGroupKeys>>[number];

const keyView = (key: Omit<ListedKeyRow, 'last_used_at'>) => ({
  id: key.id,
  groupId: key.group_id,
  connectionId: key.connection_id,
  kind: key.kind,
  name: key.name,
  prefix: key.key_prefix,
  settings: key.settings,
  createdAt: key.created_at,
});

/** A key as its group lists it: with when it last served a request. */
const listedKeyView = (key: ListedKeyRow) => ({ ...keyView(key), lastUsedAt: key.last_used_at });

export function invitationView(
  invitation: { id: string; group_id: string | null; email: string; role: string; expires_at: Date; accepted_at: Date | null; revoked_at: Date | null; created_at: Date },
  now: Date,
) {
  return {
    id: invitation.id,
    syntheticGroupId: invitation.group_id,
    email: invitation.email,
    role: invitation.role,
    status: invitationStatus(invitation, now),
    expiresAt: invitation.expires_at,
    createdAt: invitation.created_at,
  };
}

export function createGroupService(deps: {
  sql: SqlStore;
  access: Access;
  plans: PlanService;
  teams: TeamService;
  invitations: Invitations;
  usage: UsageAnalytics;
  keyCache: Pick<KeyCache<unknown>, 'invalidate'>;
  checkSettings: KeySettingsCheck;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  async function view(group: GroupRow, role: GroupRole | null) {
    const [members, keys, usage] = await Promise.all([
      listGroupMembersWithUsers(db, group.team_id, group.id),
      listGroupKeys(db, group.team_id, group.id),
      deps.usage.groupTotals({ teamId: group.team_id, groupId: group.id }),
    ]);
    return {
      id: group.id,
      teamId: group.team_id,
      name: group.name,
      description: group.description,
      createdAt: group.created_at,
      role,
      syntheticGroupUsers: members.map(memberView),
      syntheticGroupProviderKeys: keys.map(listedKeyView),
      usage,
    };
  }

  const dropFromKeyCache = async (hashes: string[]) => {
    for (const hash of hashes) await deps.keyCache.invalidate(hash);
  };

  /** A live key the user may manage the keys of its group; 404 (or 403) otherwise. */
  async function manageableKey(userId: string, keyId: string) {
    const key = await findKeyForUser(db, keyId, userId);
    enforce('group.keys.manage', { teamRole: key?.teamRole ?? null, groupRole: key?.groupRole ?? null }, 'Key');
    return key!;
  }

  const settingsOwner = (key: { team_id: string; kind: KeyKind; connection_id: string | null }) => ({ teamId: key.team_id, kind: key.kind, connectionId: key.connection_id });

  async function audit(
    trx: Db,
    teamId: string,
    actorUserId: string,
    action: string,
    target: { type: string; id: string },
    details?: Record<string, unknown>,
    values?: Pick<AuditEntry, 'before' | 'after'>,
  ) {
    await writeAudit(trx, { teamId, actorUserId, action, targetType: target.type, targetId: target.id, ...(details ? { details } : {}), ...values });
  }

  return {
    async create(userId: string, input: { teamId: string; name: string; description: string }) {
      await deps.access.team(input.teamId, userId, 'group.create');
      const group = await db.transaction().execute(async (trx) => {
        const recordOverage = await deps.plans.claimAllowance(trx, input.teamId, 'group');
        const created = await insertGroup(trx, { id: randomUUID(), ...input, createdBy: userId });
        await recordOverage(created.id);
        await audit(trx, input.teamId, userId, 'group.created', { type: 'synthetic_group', id: created.id }, { name: input.name });
        return created;
      });
      return view(group, 'ADMIN');
    },

    async list(userId: string, filter: { teamId?: string | undefined; search?: string | undefined }) {
      const groups = await listGroupsForUser(db, userId, {
        ...(filter.teamId ? { teamId: filter.teamId } : {}),
        ...(filter.search ? { search: filter.search } : {}),
      });
      return Promise.all(groups.map((group) => view(group, effectiveGroupRole({ teamRole: group.teamRole, groupRole: group.groupRole }))));
    },

    async get(userId: string, groupId: string) {
      const group = await deps.access.group(groupId, userId, 'group.view');
      return view(group, effectiveGroupRole({ teamRole: group.teamRole, groupRole: group.groupRole }));
    },

    async update(userId: string, groupId: string, changes: { name?: string | undefined; description?: string | undefined }) {
      const group = await deps.access.group(groupId, userId, 'group.update');
      const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      const updated = await db.transaction().execute(async (trx) => {
        const row = (await updateGroup(trx, group.team_id, groupId, defined))!;
        await audit(trx, group.team_id, userId, 'group.updated', { type: 'synthetic_group', id: groupId }, defined);
        return row;
      });
      return view(updated, effectiveGroupRole({ teamRole: group.teamRole, groupRole: group.groupRole }));
    },

    async remove(userId: string, groupId: string) {
      const group = await deps.access.group(groupId, userId, 'group.delete');
      const keys = await listLiveKeys(db, group.team_id, { groupId });
      await db.transaction().execute(async (trx) => {
        await deleteGroup(trx, group.team_id, groupId);
        await audit(trx, group.team_id, userId, 'group.deleted', { type: 'synthetic_group', id: groupId }, { name: group.name, keysDeleted: keys.length });
      });
      await dropFromKeyCache(keys.map((key) => key.key_hash));
      return { id: groupId };
    },

    async members(userId: string, groupId: string) {
      const group = await deps.access.group(groupId, userId, 'group.view');
      return (await listGroupMembersWithUsers(db, group.team_id, groupId)).map(memberView);
    },

    /** Adds team members to the group; those already in it are left as they are. */
    async addMembers(userId: string, groupId: string, users: { userId: string; role: GroupRole }[]) {
      const group = await deps.access.group(groupId, userId, 'group.members.manage');
      const teamMembers = new Map((await listTeamMembers(db, group.team_id)).map((member) => [member.id, member]));
      users.forEach((user, index) => {
        if (!teamMembers.has(user.userId)) {
          throw new ValidationError(`users.${index}.userId`, `users.${index}.userId is not a member of this team; invite them by email instead`);
        }
      });
      const added = await db.transaction().execute(async (trx) => {
        const done: { userId: string; role: GroupRole }[] = [];
        for (const user of users) {
          if (!(await insertGroupMember(trx, { groupId, userId: user.userId, role: user.role }))) continue;
          await audit(trx, group.team_id, userId, 'group.member_added', { type: 'user', id: user.userId }, { groupId, role: user.role }, { after: { role: user.role } });
          done.push(user);
        }
        return done;
      });
      return added.map(({ userId: addedId, role }) => {
        const member = teamMembers.get(addedId)!;
        return { user: { id: member.id, email: member.email, name: member.name, avatar: member.avatar }, role };
      });
    },

    async changeMemberRole(userId: string, groupId: string, memberId: string, role: GroupRole) {
      const group = await deps.access.group(groupId, userId, 'group.members.manage');
      return db.transaction().execute(async (trx) => {
        const before = await lockGroupMemberRole(trx, groupId, memberId);
        if (!before || !(await updateGroupMemberRole(trx, groupId, memberId, role))) throw new NotFoundError('Group member');
        await audit(trx, group.team_id, userId, 'group.member_role_changed', { type: 'user', id: memberId }, { groupId, role }, { before: { role: before }, after: { role } });
        return { groupId, userId: memberId, role };
      });
    },

    async removeMember(userId: string, groupId: string, memberId: string) {
      const group = await deps.access.group(groupId, userId, 'group.members.manage');
      return db.transaction().execute(async (trx) => {
        const before = await lockGroupMemberRole(trx, groupId, memberId);
        if (!before || !(await deleteGroupMember(trx, groupId, memberId))) throw new NotFoundError('Group member');
        await audit(trx, group.team_id, userId, 'group.member_removed', { type: 'user', id: memberId }, { groupId }, { before: { role: before } });
        return { groupId, userId: memberId };
      });
    },

    async createKey(userId: string, groupId: string, input: { name: string; kind: KeyKind; connectionId?: string | undefined; settings?: KeySettings | undefined }) {
      const group = await deps.access.group(groupId, userId, 'group.keys.manage');
      // Optimised keys are routed by Spendgate to its own accounts; BYOK and BYOM keys use one of the team's connections.
      const optimised = input.kind === 'optimised';
      if (optimised && input.connectionId) {
        throw new ValidationError('connectionId', 'connectionId: optimised keys are routed by Spendgate and take no connection');
      }
      if (!optimised && !input.connectionId) throw new ValidationError('connectionId', `connectionId is required for a ${input.kind} key`);
      const connection = input.connectionId ? await findConnection(db, group.team_id, input.connectionId) : undefined;
      if (input.connectionId && !connection) throw new ValidationError('connectionId', 'connectionId: no such connection in this team');
      if (input.kind === 'byom' && !(connection && findProvider(connection.provider)?.selfHosted)) {
        throw new ValidationError('connectionId', 'connectionId: a byom key needs a connection to the team’s own model endpoint (provider "openai-compatible")');
      }
      await deps.checkSettings(db, { teamId: group.team_id, kind: input.kind, connectionId: connection?.id ?? null }, input.settings);

      const generated = generateIssuedKey();
      return db.transaction().execute(async (trx) => {
        const recordOverage = optimised ? await deps.plans.claimAllowance(trx, group.team_id, 'key') : undefined;
        const key = await insertIssuedKey(trx, {
          id: randomUUID(),
          team_id: group.team_id,
          group_id: group.id,
          connection_id: connection?.id ?? null,
          kind: input.kind,
          name: input.name,
          key_hash: generated.hash,
          key_prefix: generated.prefix,
          created_by: userId,
          ...(input.settings && { settings: input.settings }),
        });
        await recordOverage?.(key.id);
        await audit(
          trx,
          group.team_id,
          userId,
          'key.created',
          { type: 'issued_key', id: key.id },
          { kind: key.kind, groupId: group.id, connectionId: key.connection_id },
          { after: { name: key.name, prefix: key.key_prefix, kind: key.kind, settings: key.settings } },
        );
        return { key, plaintext: generated.plaintext };
      });
    },

    /** Renames a key or replaces its settings; gateways pick the change up at once. */
    async updateKey(userId: string, keyId: string, changes: { name?: string | undefined; settings?: KeySettings | undefined }) {
      const key = await manageableKey(userId, keyId);
      await deps.checkSettings(db, settingsOwner(key), changes.settings);
      const updated = await db.transaction().execute(async (trx) => {
        const before = await lockKey(trx, key.team_id, keyId);
        if (before === undefined) throw new NotFoundError('Key');
        const row = await updateIssuedKey(trx, key.team_id, keyId, {
          ...(changes.name !== undefined && { name: changes.name }),
          ...(changes.settings !== undefined && { settings: changes.settings }),
        });
        if (!row) throw new NotFoundError('Key');
        await audit(
          trx,
          key.team_id,
          userId,
          'key.updated',
          { type: 'issued_key', id: keyId },
          { changed: Object.keys(changes) },
          { before, after: { name: row.name, settings: row.settings } },
        );
        return row;
      });
      await dropFromKeyCache([key.key_hash]);
      return keyView(updated);
    },

    /**
     * Merges a change into a key's settings (the advisor's one click: a model override, a
     * lower output cap), checked, stored and audited as an edit of its settings is.
     */
    async changeKeySettings(userId: string, keyId: string, change: KeySettingChange) {
      const key = await manageableKey(userId, keyId);
      const updated = await db.transaction().execute(async (trx) => {
        const current = await lockKey(trx, key.team_id, keyId);
        if (current === undefined) throw new NotFoundError('Key');
        const settings = withKeySettingChange(current.settings, change);
        await deps.checkSettings(trx, settingsOwner(key), settings);
        const row = (await updateIssuedKey(trx, key.team_id, keyId, { settings }))!;
        await audit(trx, key.team_id, userId, 'key.updated', { type: 'issued_key', id: keyId }, { changed: ['settings'] }, { before: { settings: current.settings }, after: { settings: row.settings } });
        return row;
      });
      await dropFromKeyCache([key.key_hash]);
      return keyView(updated);
    },

    async revokeKey(userId: string, keyId: string) {
      const key = await manageableKey(userId, keyId);
      await db.transaction().execute(async (trx) => {
        const before = await lockKey(trx, key.team_id, keyId);
        if (before === undefined) throw new NotFoundError('Key');
        await revokeKey(trx, key.team_id, keyId, now());
        await audit(trx, key.team_id, userId, 'key.revoked', { type: 'issued_key', id: keyId }, { groupId: key.group_id }, { before: { ...before, revoked: false }, after: { revoked: true } });
      });
      await dropFromKeyCache([key.key_hash]);
      return { id: keyId, groupId: key.group_id };
    },

    async invite(userId: string, groupId: string, input: { email: string; role: GroupRole }) {
      const group = await deps.access.group(groupId, userId, 'group.members.manage');
      const members = await listGroupMembersWithUsers(db, group.team_id, groupId);
      if (members.some((member) => member.email === input.email)) throw new ConflictError(`${input.email} is already a member of this group`);
      const team = (await findTeam(db, group.team_id))!;
      const inTeam = (await listTeamMembers(db, group.team_id)).some((member) => member.email === input.email);
      const { invitation, dispatch } = await db.transaction().execute(async (trx) => {
        if (!inTeam) await deps.plans.claimAllowance(trx, group.team_id, 'seat', await countPendingTeamInvitations(trx, group.team_id, now()));
        const created = await deps.invitations.create(
          trx,
          { teamId: group.team_id, groupId, email: input.email, role: input.role, invitedBy: userId },
          { teamName: team.name, groupName: group.name },
        );
        await audit(trx, group.team_id, userId, 'invitation.created', { type: 'invitation', id: created.invitation.id }, { groupId, email: input.email, role: input.role });
        return created;
      });
      await dispatch();
      return invitationView(invitation, now());
    },

    async invitations(userId: string, groupId: string) {
      const group = await deps.access.group(groupId, userId, 'group.members.manage');
      return (await listGroupInvitations(db, group.team_id, groupId)).map((invitation) => invitationView(invitation, now()));
    },

    async resendInvitation(userId: string, invitationId: string) {
      const invitation = await findInvitationForUser(db, invitationId, userId);
      if (!invitation?.group_id) throw new NotFoundError('Invitation');
      const group = await deps.access.group(invitation.group_id, userId, 'group.members.manage');
      const team = (await findTeam(db, invitation.team_id))!;
      const { invitation: renewed, dispatch } = await db.transaction().execute(async (trx) => {
        const resent = await deps.invitations.resend(trx, invitation, { teamName: team.name, groupName: group.name });
        await audit(trx, invitation.team_id, userId, 'invitation.resent', { type: 'invitation', id: invitationId }, { groupId: invitation.group_id });
        return resent;
      });
      await dispatch();
      return invitationView(renewed, now());
    },

    async revokeInvitation(userId: string, invitationId: string) {
      const invitation = await findInvitationForUser(db, invitationId, userId);
      if (!invitation?.group_id) throw new NotFoundError('Invitation');
      await deps.access.group(invitation.group_id, userId, 'group.members.manage');
      return db.transaction().execute(async (trx) => {
        if (!(await revokeInvitation(trx, invitation.team_id, invitationId, now()))) {
          throw new ValidationError('invitationId', 'invitationId: only a pending invitation can be revoked');
        }
        await audit(trx, invitation.team_id, userId, 'invitation.revoked', { type: 'invitation', id: invitationId }, { groupId: invitation.group_id });
        return invitationView({ ...invitation, revoked_at: now() }, now());
      });
    },

    /** Accepts a group invitation for the signed-in user, whose email it must have been sent to. */
    async acceptInvitation(user: { userId: string; email: string }, token: string) {
      const groupId = await db.transaction().execute(async (trx) => {
        const invitation = await deps.invitations.open(trx, token, 'group');
        if (invitation.email !== user.email) throw new ForbiddenError('This invitation was sent to another email address');
        await deps.teams.join(trx, invitation.team_id, user.userId, 'MEMBER', user.userId);
        const role = invitation.role as GroupRole;
        const before = await lockGroupMemberRole(trx, invitation.group_id!, user.userId);
        if (!(await insertGroupMember(trx, { groupId: invitation.group_id!, userId: user.userId, role }))) {
          await updateGroupMemberRole(trx, invitation.group_id!, user.userId, role);
        }
        await markInvitationAccepted(trx, invitation.id, now());
        await audit(
          trx,
          invitation.team_id,
          user.userId,
          'invitation.accepted',
          { type: 'invitation', id: invitation.id },
          { groupId: invitation.group_id, role },
          { ...(before && { before: { role: before } }), after: { role } },
        );
        return invitation.group_id!;
      });
      const group = await deps.access.group(groupId, user.userId, 'group.view');
      return { group: await view(group, effectiveGroupRole({ teamRole: group.teamRole, groupRole: group.groupRole })) };
    },

    async usage(userId: string, groupId: string, range: { startDate?: string | undefined; endDate?: string | undefined }) {
      return deps.usage.summary(userId, { groupId, ...range });
    },
  };
}

export type GroupService = ReturnType<typeof createGroupService>;
