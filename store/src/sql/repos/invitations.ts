// Invitations to a team or one of its groups. Found by token hash (accepting) or by id
// within a team (listing, resending, revoking).
import type { GroupRole, TeamRole } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertInvitation(
  db: Db,
  invitation: {
    id: string;
    teamId: string;
    groupId: string | null;
    email: string;
    role: TeamRole | GroupRole;
    tokenHash: string;
    invitedBy: string;
    expiresAt: Date;
  },
) {
  return db
    .insertInto('invitations')
    .values({
      id: invitation.id,
      team_id: invitation.teamId,
      group_id: invitation.groupId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      expires_at: invitation.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findInvitationByTokenHash(db: Db, tokenHash: string) {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst();
}

/** An invitation by id, only if it belongs to one of the user's teams, with the user's roles. */
export async function findInvitationForUser(db: Db, id: string, userId: string) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 'i.team_id').on('tm.user_id', '=', userId))
    .leftJoin('synthetic_group_members as gm', (join) => join.onRef('gm.group_id', '=', 'i.group_id').on('gm.user_id', '=', userId))
    .selectAll('i')
    .select(['tm.role as teamRole', 'gm.role as groupRole'])
    .where('i.id', '=', id)
    .executeTakeFirst();
}

export async function listGroupInvitations(db: Db, teamId: string, groupId: string) {
  return db
    .selectFrom('invitations')
    .select(['id', 'team_id', 'group_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'revoked_at', 'created_at'])
    .where('team_id', '=', teamId)
    .where('group_id', '=', groupId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** A team's own invitations (not its groups') not yet accepted, revoked or expired, newest first. */
export async function listPendingTeamInvitations(db: Db, teamId: string, now: Date) {
  return db
    .selectFrom('invitations')
    .select(['id', 'team_id', 'group_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'revoked_at', 'created_at'])
    .where('team_id', '=', teamId)
    .where('group_id', 'is', null)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Invitations to the team not yet accepted, revoked or expired (they will take seats). */
export async function countPendingTeamInvitations(db: Db, teamId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('team_id', '=', teamId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('email', 'not in', (eb) =>
      eb.selectFrom('team_members as tm').innerJoin('users as u', 'u.id', 'tm.user_id').select('u.email').where('tm.team_id', '=', teamId),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Gives an invitation a new token and expiry (resend). */
export async function renewInvitation(db: Db, teamId: string, id: string, tokenHash: string, expiresAt: Date) {
  return db
    .updateTable('invitations')
    .set({ token_hash: tokenHash, expires_at: expiresAt })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function revokeInvitation(db: Db, teamId: string, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markInvitationAccepted(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('invitations').set({ accepted_at: at }).where('id', '=', id).execute();
}
