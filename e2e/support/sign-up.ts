/**
 * Signing up the way a user does: register, then enter the code Spendgate mailed to
 * confirm the email; or follow the link of an invitation Spendgate mailed. The code is read from the Spendgate's mail outbox, where every
 * message is kept whether SMTP sent it or (without SMTP_URL) the log printed it.
 */
import { listOutboxMail } from '@spendgate/store';
import { expect } from 'vitest';
import { callApi, runningAt } from './spendgate.ts';

/** The code in the newest message to `email` from the Spendgate at `base`. */
export async function mailedCode(base: string, email: string): Promise<string> {
  const newest = (await listOutboxMail(runningAt(base).app.runtime.stores.sql.db, email)).at(-1);
  const code = newest && /^\s+(\d{6})\s*$/m.exec(newest.text_body)?.[1];
  if (!code) throw new Error(`no code mailed to ${email}: ${newest?.text_body}`);
  return code;
}

/** The invitation token in the newest invitation mailed to `email` (its link's ?invite= or ?token=). */
export async function mailedInvitationToken(base: string, email: string): Promise<string> {
  const invitations = (await listOutboxMail(runningAt(base).app.runtime.stores.sql.db, email)).filter((mail) => mail.subject.startsWith('You are invited'));
  const token = /[?&](?:invite|token)=([A-Za-z0-9_-]+)/.exec(invitations.at(-1)?.text_body ?? '')?.[1];
  if (!token) throw new Error(`no invitation mailed to ${email}`);
  return token;
}

/** Confirms a registered account's email with the mailed code and its session; answers the full session token. */
export async function confirmEmail(base: string, email: string, token: string): Promise<string> {
  const confirmed = await callApi(base, 'POST', '/auth/verify-email-otp', { token, body: { email, otp: await mailedCode(base, email) } });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return confirmed.body.data.token;
}

/** Registers an account and confirms its email: its id and full session token. */
export async function signUp(base: string, email: string, options: { password?: string; name?: string; planId?: string } = {}) {
  const registered = await callApi(base, 'POST', `/auth/register${options.planId ? `?planId=${options.planId}` : ''}`, {
    body: { email, password: options.password ?? 'a long enough password', name: options.name ?? email.split('@')[0] },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const normalised = registered.body.data.user.email as string;
  return { userId: registered.body.data.user.id as string, token: await confirmEmail(base, normalised, registered.body.data.token) };
}
