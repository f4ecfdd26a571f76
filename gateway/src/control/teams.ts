/**
 * Teams, the tenant: creating one (its creator becomes ADMIN), members and their roles,
 * and invitations by email (accepting creates the account when needed; admins list,
 * resend and revoke those pending). Seats follow
 * the plan; every change writes an audit row in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import type { TeamRole } from '@spendgate/core';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '@spendgate/core';
import {
  countPendingTeamInvitations,
  countTeamMembers,
  type Db,
  deleteTeamMember,
  findInvitationForUser,
  findTeam,
  findTeamRole,
  findUserByEmail,
  insertTeam,
  insertTeamMember,
  insertVerifiedUser,
  type JobPayloads,
  type JobQueue,
  type KeyCache,
  listLiveKeys,
  listPendingTeamInvitations,
  listTeamMembers,
  listTeamsOfUser,
  markEmailVerified,
  markInvitationAccepted,
  requestRollupRebuild,
  revokeInvitation,
  type SqlStore,
  updateTeam,
  updateTeamMemberRole,
  writeAudit,
} from '@spendgate/store';
import { rollupRebuildJobId } from '@spendgate/worker';
import { passwordProblem } from '../security/password-policy.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import type { Access } from './access.ts';
import type { AccountService } from './accounts.ts';
import type { Invitations } from './invitations.ts';
import type { PlanService } from './plans.ts';

export function createTeamService(deps: {
  sql: SqlStore;
  access: Access;
  plans: PlanService;
  invitations: Invitations;
  accounts: AccountService;
  keyCache: Pick<KeyCache<unknown>, 'invalidate'>;
  queue: Pick<JobQueue<JobPayloads>, 'enqueue'>;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  /** Adds a member, taking a seat (refused or charged as the plan says); nothing if already one. */
  async function join(trx: Db, teamId: string, userId: string, role: TeamRole, actorUserId: string) {
    if (await findTeamRole(trx, teamId, userId)) return;
    const recordOverage = await deps.plans.claimAllowance(trx, teamId, 'seat');
    await insertTeamMember(trx, { teamId, userId, role });
    await recordOverage(userId);
    await writeAudit(trx, { teamId, actorUserId, action: 'member.joined', targetType: 'user', targetId: userId, details: { role }, after: { role } });
  }

  async function requireOtherAdmin(trx: Db, teamId: string, currentRole: TeamRole) {
    if (currentRole === 'ADMIN' && (await countTeamMembers(trx, teamId, 'ADMIN')) <= 1) {
      throw new ConflictError('A team needs at least one admin: make another member admin first');
    }
  }

  return {
    async createTeam(userId: string, input: { name: string; description: string }) {
      return db.transaction().execute(async (trx) => {
        const team = await insertTeam(trx, { id: randomUUID(), ...input, createdBy: userId });
        await writeAudit(trx, { teamId: team.id, actorUserId: userId, action: 'team.created', targetType: 'team', targetId: team.id });
        return team;
      });
    },

    listTeams: (userId: string) => listTeamsOfUser(db, userId),

    /**
     * Renames a team or moves its budget windows and daily usage to another time zone
     * (team admins): a new zone has the rollup-rebuild job regroup the days already recorded.
     */
    async updateTeam(userId: string, teamId: string, changes: { name?: string | undefined; description?: string | undefined; timeZone?: string | undefined }) {
      await deps.access.team(teamId, userId, 'team.settings.manage');
      const { team, rebuild } = await db.transaction().execute(async (trx) => {
        const before = (await findTeam(trx, teamId))!;
        const row = await updateTeam(trx, teamId, {
          ...(changes.name !== undefined && { name: changes.name }),
          ...(changes.description !== undefined && { description: changes.description }),
          ...(changes.timeZone !== undefined && { timeZone: changes.timeZone }),
        });
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'team.updated',
          targetType: 'team',
          targetId: teamId,
          details: changes,
          before: { name: before.name, description: before.description, timeZone: before.time_zone },
          after: { name: row.name, description: row.description, timeZone: row.time_zone },
        });
        const zoneChanged = changes.timeZone !== undefined && changes.timeZone !== before.time_zone;
        return { team: row, rebuild: zoneChanged ? await requestRollupRebuild(trx, teamId, now()) : undefined };
      });
      if (rebuild !== undefined) await deps.queue.enqueue('rollup-rebuild', { teamId }, { jobId: rollupRebuildJobId(teamId, rebuild.requestedAt, 0) });
      // Budget windows of every key follow the team's time zone.
      if (changes.timeZone !== undefined) {
        for (const key of await listLiveKeys(db, teamId, {})) await deps.keyCache.invalidate(key.key_hash);
      }
      return { ...team, role: 'ADMIN' as const };
    },

    async members(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.members.view');
      return listTeamMembers(db, teamId);
    },

    async invite(userId: string, input: { teamId: string; email: string; role: TeamRole }) {
      await deps.access.team(input.teamId, userId, 'team.members.invite');
      const team = (await findTeam(db, input.teamId))!;
      if ((await listTeamMembers(db, input.teamId)).some((member) => member.email === input.email)) {
        throw new ConflictError(`${input.email} is already a member of this team`);
      }
      const { invitation, dispatch } = await db.transaction().execute(async (trx) => {
        await deps.plans.claimAllowance(trx, input.teamId, 'seat', await countPendingTeamInvitations(trx, input.teamId, now()));
        const created = await deps.invitations.create(trx, { ...input, groupId: null, invitedBy: userId }, { teamName: team.name });
        await writeAudit(trx, {
          teamId: input.teamId,
          actorUserId: userId,
          action: 'invitation.created',
          targetType: 'invitation',
          targetId: created.invitation.id,
          details: { email: input.email, role: input.role },
        });
        return created;
      });
      await dispatch();
      return invitation;
    },

    /** What a pending team invitation's token opens (the token is the proof): for whom, to which team, and whether that account exists. */
    async preview(token: string) {
      return db.transaction().execute(async (trx) => {
        const invitation = await deps.invitations.open(trx, token, 'team');
        const team = (await findTeam(trx, invitation.team_id))!;
        return {
          teamName: team.name,
          email: invitation.email,
          role: invitation.role as TeamRole,
          expiresAt: new Date(invitation.expires_at),
          accountExists: (await findUserByEmail(trx, invitation.email)) !== undefined,
        };
      });
    },

    /** The team's invitations still waiting for an answer (team admins). */
    async pendingInvitations(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.members.invite');
      return listPendingTeamInvitations(db, teamId, now());
    },

    /** Mails a pending team invitation again, with a new token and 7 more days (team admins). */
    async resendInvitation(userId: string, invitationId: string) {
      const invitation = await findInvitationForUser(db, invitationId, userId);
      if (!invitation || invitation.group_id !== null) throw new NotFoundError('Invitation');
      await deps.access.team(invitation.team_id, userId, 'team.members.invite');
      const team = (await findTeam(db, invitation.team_id))!;
      const { invitation: renewed, dispatch } = await db.transaction().execute(async (trx) => {
        const resent = await deps.invitations.resend(trx, invitation, { teamName: team.name });
        await writeAudit(trx, { teamId: invitation.team_id, actorUserId: userId, action: 'invitation.resent', targetType: 'invitation', targetId: invitationId });
        return resent;
      });
      await dispatch();
      return renewed;
    },

    /** Withdraws a pending team invitation: its link stops working and its seat is free (team admins). */
    async revokeInvitation(userId: string, invitationId: string) {
      const invitation = await findInvitationForUser(db, invitationId, userId);
      if (!invitation || invitation.group_id !== null) throw new NotFoundError('Invitation');
      await deps.access.team(invitation.team_id, userId, 'team.members.invite');
      return db.transaction().execute(async (trx) => {
        if (!(await revokeInvitation(trx, invitation.team_id, invitationId, now()))) {
          throw new ValidationError('invitationId', 'invitationId: only a pending invitation can be revoked');
        }
        await writeAudit(trx, { teamId: invitation.team_id, actorUserId: userId, action: 'invitation.revoked', targetType: 'invitation', targetId: invitationId });
        return invitation;
      });
    },

    /** The team's seats against its plan (any member may see them). */
    async seats(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.members.view');
      return deps.plans.seats(teamId);
    },

    /**
     * Accepts a team invitation with its token: signs in the invited account (its
     * password checked) or creates it (verified: the token came by email), then joins.
     */
    async accept(input: { token: string; password: string; name?: string | undefined }) {
      const { userId, teamId } = await db.transaction().execute(async (trx) => {
        const invitation = await deps.invitations.open(trx, input.token, 'team');
        let user = await findUserByEmail(trx, invitation.email);
        if (user) {
          if (!(await verifyPassword(user.password_hash, input.password))) throw new UnauthorizedError('Invalid email or password');
          user = (await markEmailVerified(trx, user.id, now()))!;
        } else {
          const problem = await passwordProblem(input.password, invitation.email);
          if (problem) throw new ValidationError('password', `password ${problem}`);
          if (!input.name) throw new ValidationError('name', 'name is required to create your account');
          user = await insertVerifiedUser(trx, {
            id: randomUUID(),
            email: invitation.email,
            name: input.name,
            passwordHash: await hashPassword(input.password),
          });
          await deps.plans.startTrial(trx, user.id, 'free-trial');
        }
        await join(trx, invitation.team_id, user.id, invitation.role as TeamRole, user.id);
        await markInvitationAccepted(trx, invitation.id, now());
        return { userId: user.id, teamId: invitation.team_id };
      });
      const team = (await listTeamsOfUser(db, userId)).find((candidate) => candidate.id === teamId)!;
      return { ...(await deps.accounts.sessionFor(userId)), team };
    },

    async changeRole(userId: string, input: { teamId: string; userId: string; role: TeamRole }) {
      await deps.access.team(input.teamId, userId, 'team.members.role');
      return db.transaction().execute(async (trx) => {
        const member = (await listTeamMembers(trx, input.teamId)).find((candidate) => candidate.id === input.userId);
        if (!member) throw new NotFoundError('Team member');
        if (input.role !== 'ADMIN') await requireOtherAdmin(trx, input.teamId, member.role);
        await updateTeamMemberRole(trx, input.teamId, input.userId, input.role);
        await writeAudit(trx, {
          teamId: input.teamId,
          actorUserId: userId,
          action: 'member.role_changed',
          targetType: 'user',
          targetId: input.userId,
          details: { from: member.role, to: input.role },
          before: { role: member.role },
          after: { role: input.role },
        });
        return { ...member, role: input.role };
      });
    },

    async removeMember(userId: string, input: { teamId: string; userId: string }) {
      await deps.access.team(input.teamId, userId, 'team.members.remove');
      return db.transaction().execute(async (trx) => {
        const member = (await listTeamMembers(trx, input.teamId)).find((candidate) => candidate.id === input.userId);
        if (!member) throw new NotFoundError('Team member');
        await requireOtherAdmin(trx, input.teamId, member.role);
        await deleteTeamMember(trx, input.teamId, input.userId);
        await writeAudit(trx, {
          teamId: input.teamId,
          actorUserId: userId,
          action: 'member.removed',
          targetType: 'user',
          targetId: input.userId,
          details: { email: member.email },
          before: { role: member.role },
        });
        return { teamId: input.teamId, userId: input.userId };
      });
    },

    /** Adds a signed-in user to a team (a group invitation's acceptance). */
    join,
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
