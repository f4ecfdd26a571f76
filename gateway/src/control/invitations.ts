/**
 * Invitations to a team or to one of its groups: a 256-bit token mailed to the invited
 * address, stored only as its hash, valid for 7 days, used once, and accepted only for
 * the email it was sent to. Shared by the team and group services.
 */
import { randomUUID } from 'node:crypto';
import { ValidationError } from '@spendgate/core';
import type { Dispatch, Mailer } from '@spendgate/store';
import {
  type Db,
  findInvitationByTokenHash,
  type GroupRole,
  insertInvitation,
  renewInvitation,
  type TeamRole,
} from '@spendgate/store';
import { generateInvitationToken, hashInvitationToken } from '../security/one-time-codes.ts';

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;

type InvitationRow = NonNullable<Awaited<ReturnType<typeof findInvitationByTokenHash>>>;

export function invitationStatus(invitation: Pick<InvitationRow, 'accepted_at' | 'revoked_at' | 'expires_at'>, now: Date) {
  if (invitation.accepted_at) return 'accepted' as const;
  if (invitation.revoked_at) return 'revoked' as const;
  return new Date(invitation.expires_at) <= now ? ('expired' as const) : ('pending' as const);
}

export function createInvitations(deps: { mailer: Mailer; publicUrl: string; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  function invitationMail(trx: Db, to: string, place: { teamName: string; groupName?: string }, role: string, link: string): Promise<Dispatch> {
    const where = place.groupName ? `the synthetic group "${place.groupName}" of ${place.teamName}` : `the team ${place.teamName}`;
    return deps.mailer.store(trx, {
      to,
      subject: `You are invited to ${place.groupName ?? place.teamName} on Spendgate`,
      text: `You have been invited to join ${where} on Spendgate as ${role}.\n\nAccept the invitation here:\n${link}\n\nThe link works once and expires in 7 days. If you did not expect it, you can ignore this email.\n\n— Spendgate`,
    });
  }

  const linkFor = (groupId: string | null, token: string) =>
    groupId ? `${deps.publicUrl}/groups/accept-invite?token=${token}` : `${deps.publicUrl}/register?invite=${token}`;

  return {
    /** Stores a new invitation and its email; dispatch the email once the transaction commits. */
    async create(
      trx: Db,
      input: { teamId: string; groupId: string | null; email: string; role: TeamRole | GroupRole; invitedBy: string },
      place: { teamName: string; groupName?: string },
    ) {
      const { token, hash } = generateInvitationToken();
      const invitation = await insertInvitation(trx, {
        id: randomUUID(),
        ...input,
        tokenHash: hash,
        expiresAt: new Date(now().getTime() + INVITATION_LIFETIME_MS),
      });
      const dispatch = await invitationMail(trx, input.email, place, input.role, linkFor(input.groupId, token));
      return { invitation, dispatch };
    },

    /** A fresh token and expiry for a pending invitation, and its email to dispatch after commit. */
    async resend(trx: Db, invitation: InvitationRow, place: { teamName: string; groupName?: string }) {
      const { token, hash } = generateInvitationToken();
      const renewed = await renewInvitation(trx, invitation.team_id, invitation.id, hash, new Date(now().getTime() + INVITATION_LIFETIME_MS));
      if (!renewed) throw new ValidationError('invitationId', 'invitationId: only a pending invitation can be resent');
      const dispatch = await invitationMail(trx, invitation.email, place, invitation.role, linkFor(invitation.group_id, token));
      return { invitation: renewed, dispatch };
    },

    /** The pending invitation a token opens (locked for update), of the kind expected. */
    async open(trx: Db, token: string, kind: 'team' | 'group'): Promise<InvitationRow> {
      const invitation = await findInvitationByTokenHash(trx, hashInvitationToken(token));
      const rightKind = invitation && (kind === 'group') === (invitation.group_id !== null);
      if (!invitation || !rightKind || invitationStatus(invitation, now()) !== 'pending') {
        throw new ValidationError('token', 'token: this invitation is invalid, used or expired');
      }
      return invitation;
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;
