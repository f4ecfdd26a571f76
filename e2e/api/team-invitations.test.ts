/**
 * What the console's team screens read, in every run mode: what a team invitation's
 * token opens before it is accepted (POST /api/team/invitation: the team, the invited
 * e-mail, the role, whether that account exists; only a pending team invitation opens),
 * and a team's seats against its plan (GET /api/team/{id}/seats: members and pending
 * invitations, for members only; the trial refuses seats past those included, a paid
 * plan charges them), and an admin's pending invitations: listed, resent with a new link,
 * revoked. Tokens come from the mail a real SMTP server received.
 */
import { upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { invitationTokenIn, type MailSink, registerUser, startMailSink } from './support.ts';

const PASSWORD = 'a long enough password';

for (const mode of testModes) {
  describe(`team invitations and seats (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;
    let admin: { token: string; userId: string };
    let teamId: string;
    let memberToken: string;
    let groupInvitationId: string;
    const api = (method: string, route: string, options?: { token?: string; body?: unknown }) => callApi(spendgate.url, method, route, options);

    const invitationsTo = (email: string) => mail.messages.filter((message) => message.to === email && message.subject.startsWith('You are invited'));

    /** Invites `email` (lower case: as the mailbox is) to a team and answers the token its e-mail carries. */
    async function invite(email: string, options: { role?: string; team?: string } = {}): Promise<string> {
      const before = invitationsTo(email).length;
      const invited = await api('POST', '/team/invite', { token: admin.token, body: { teamId: options.team ?? teamId, email, role: options.role ?? 'MEMBER' } });
      expect(invited.status, JSON.stringify(invited.body)).toBe(201);
      await expect.poll(() => invitationsTo(email).length, { timeout: 10_000, interval: 25 }).toBeGreaterThan(before);
      const message = invitationsTo(email).at(-1)!;
      expect(message.text).toContain('https://console.spendgate.test/register?invite=');
      return invitationTokenIn(message);
    }

    beforeAll(async () => {
      mail = await startMailSink();
      spendgate = await startSpendgate(mode, 'api-team-invitations', { env: { SMTP_URL: mail.url, PUBLIC_URL: 'https://console.spendgate.test' } });
      admin = await registerUser(spendgate.url, 'lead@example.com');
      const team = await api('POST', '/team/', { token: admin.token, body: { name: 'Platform', description: '' } });
      teamId = team.body.data.id;
    });
    afterAll(async () => {
      await spendgate?.close();
      await mail?.close();
    });

    it('counts seats: the trial includes 2, members and pending invitations take them', async () => {
      const seats = await api('GET', `/team/${teamId}/seats`, { token: admin.token });
      expect(seats.status).toBe(200);
      expect(seats.body.data).toEqual({
        plan: 'Free Trial',
        planSlug: 'free-trial',
        paying: false,
        included: 2,
        used: 1,
        pending: 0,
        currency: 'GBP',
        extraSeatMonthlyMicros: '10000000',
      });
    });

    it('opens a pending invitation for a new e-mail without a session, then no more once accepted', async () => {
      const token = await invite('new.colleague@example.com');
      const preview = await api('POST', '/team/invitation', { body: { token } });
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      expect(preview.body.data).toMatchObject({ teamName: 'Platform', email: 'new.colleague@example.com', role: 'MEMBER', accountExists: false });
      const days = (Date.parse(preview.body.data.expiresAt) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.9);
      expect(days).toBeLessThanOrEqual(7);
      // Opening it changes nothing: it can still be accepted, and it holds a seat meanwhile.
      expect((await api('POST', '/team/invitation', { body: { token } })).status).toBe(200);
      expect((await api('GET', `/team/${teamId}/seats`, { token: admin.token })).body.data).toMatchObject({ used: 1, pending: 1 });

      const accepted = await api('POST', '/team/accept', { body: { token, password: PASSWORD, name: 'New Colleague' } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      const used = await api('POST', '/team/invitation', { body: { token } });
      expect(used.status).toBe(400);
      expect(used.body).toMatchObject({ field: 'token', message: 'token: this invitation is invalid, used or expired' });

      // A member sees the seats too.
      memberToken = accepted.body.data.token;
      const seats = await api('GET', `/team/${teamId}/seats`, { token: accepted.body.data.token });
      expect(seats.status).toBe(200);
      expect(seats.body.data).toMatchObject({ included: 2, used: 2, pending: 0 });
    });

    it('says when the invited e-mail already has an account (it logs in to accept); a paid plan charges seats past those included', async () => {
      await registerUser(spendgate.url, 'existing@example.com');
      // The trial's two seats are taken: it refuses a third.
      const refused = await api('POST', '/team/invite', { token: admin.token, body: { teamId, email: 'existing@example.com' } });
      expect(refused.status).toBe(402);

      await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: admin.userId, planSlug: 'growth', status: 'active', trialEnd: null });
      expect((await api('GET', `/team/${teamId}/seats`, { token: admin.token })).body.data).toEqual({
        plan: 'Growth',
        planSlug: 'growth',
        paying: true,
        included: 5,
        used: 2,
        pending: 0,
        currency: 'GBP',
        extraSeatMonthlyMicros: '8000000',
      });
      const token = await invite('existing@example.com', { role: 'ADMIN' });
      const preview = await api('POST', '/team/invitation', { body: { token } });
      expect(preview.body.data).toMatchObject({ teamName: 'Platform', email: 'existing@example.com', role: 'ADMIN', accountExists: true });
    });

    it('opens only team invitations, and refuses a token that is not one, naming it', async () => {
      const group = await api('POST', '/synthetic-group', { token: admin.token, body: { name: 'Group', description: '', teamId } });
      const before = invitationsTo('grouped@example.com').length;
      const groupInvite = await api('POST', `/synthetic-group/${group.body.data.id}/invite`, { token: admin.token, body: { email: 'grouped@example.com', role: 'OBSERVER' } });
      expect(groupInvite.status, JSON.stringify(groupInvite.body)).toBe(201);
      groupInvitationId = groupInvite.body.data.id;
      await expect.poll(() => invitationsTo('grouped@example.com').length, { timeout: 10_000, interval: 25 }).toBeGreaterThan(before);
      const groupToken = invitationTokenIn(invitationsTo('grouped@example.com').at(-1)!);
      expect(invitationsTo('grouped@example.com').at(-1)!.text).toContain('/groups/accept-invite?token=');
      for (const token of [groupToken, 'x'.repeat(43), 'short', 42]) {
        const refused = await api('POST', '/team/invitation', { body: { token } });
        expect(refused.status, String(token)).toBe(400);
        expect(refused.body.field).toBe('token');
      }
      expect((await api('POST', '/team/invitation', { body: {} })).body.field).toBe('token');
    });

    it('lists pending team invitations to admins, resends one with a new link and revokes one', async () => {
      const pending = await api('GET', `/team/${teamId}/invitations`, { token: admin.token });
      expect(pending.status).toBe(200);
      // The existing account's invitation is pending; the accepted one and the group's are not listed.
      expect(pending.body.data).toEqual([expect.objectContaining({ teamId, email: 'existing@example.com', role: 'ADMIN' })]);
      const invitationId = pending.body.data[0].id;
      expect((await api('GET', `/team/${teamId}/invitations`, { token: memberToken })).status).toBe(403);
      expect((await api('DELETE', `/team/invitations/${invitationId}/revoke`, { token: memberToken })).status).toBe(403);

      const oldToken = invitationTokenIn(invitationsTo('existing@example.com').at(-1)!);
      const before = invitationsTo('existing@example.com').length;
      const resent = await api('POST', `/team/invitations/${invitationId}/resend`, { token: admin.token });
      expect(resent.status, JSON.stringify(resent.body)).toBe(200);
      expect(resent.body.data).toMatchObject({ id: invitationId, email: 'existing@example.com', role: 'ADMIN' });
      await expect.poll(() => invitationsTo('existing@example.com').length, { timeout: 10_000, interval: 25 }).toBeGreaterThan(before);
      const newToken = invitationTokenIn(invitationsTo('existing@example.com').at(-1)!);
      expect(newToken).not.toBe(oldToken);
      expect((await api('POST', '/team/invitation', { body: { token: oldToken } })).status).toBe(400);
      expect((await api('POST', '/team/invitation', { body: { token: newToken } })).status).toBe(200);

      const revoked = await api('DELETE', `/team/invitations/${invitationId}/revoke`, { token: admin.token });
      expect(revoked.status).toBe(200);
      expect((await api('POST', '/team/invitation', { body: { token: newToken } })).status).toBe(400);
      expect((await api('GET', `/team/${teamId}/invitations`, { token: admin.token })).body.data).toEqual([]);
      // Its seat is free; the group's invitation to a newcomer still holds one.
      expect((await api('GET', `/team/${teamId}/seats`, { token: admin.token })).body.data).toMatchObject({ used: 2, pending: 1 });

      const again = await api('DELETE', `/team/invitations/${invitationId}/revoke`, { token: admin.token });
      expect(again.status).toBe(400);
      expect(again.body.field).toBe('invitationId');
      expect((await api('POST', `/team/invitations/${invitationId}/resend`, { token: admin.token })).body.field).toBe('invitationId');
      // A group's invitation is the group's to manage; an unknown one does not exist; a bad id is named.
      expect((await api('DELETE', `/team/invitations/${groupInvitationId}/revoke`, { token: admin.token })).status).toBe(404);
      expect((await api('DELETE', `/team/invitations/${crypto.randomUUID()}/revoke`, { token: admin.token })).status).toBe(404);
      expect((await api('POST', '/team/invitations/nope/resend', { token: admin.token })).body.field).toBe('invitationId');
    });

    it('shows seats only to the team: 404 to others, 401 without a session, 400 for a bad id', async () => {
      const stranger = await registerUser(spendgate.url, 'stranger@example.com');
      expect((await api('GET', `/team/${teamId}/seats`, { token: stranger.token })).status).toBe(404);
      expect((await api('GET', `/team/${teamId}/seats`)).status).toBe(401);
      const bad = await api('GET', '/team/not-a-team/seats', { token: admin.token });
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('teamId');
    });
  });
}
