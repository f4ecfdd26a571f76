/**
 * Accounts end to end, in every run mode, with mail read from a real SMTP server:
 * registration (plan trials, password rules), sign-in and its rate limit, sessions
 * (expired, invalid, ended by a password change), profile and metadata, one-time
 * codes (hashed, single use, expiring, five tries, resend limit), the forgot-password
 * flow, and Google sign-in verified against a local JWKS.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { codeIn, type MailSink, registerUser, startMailSink } from './support.ts';

const GOOGLE_CLIENT_ID = 'spendgate-test.apps.googleusercontent.com';
const PASSWORD = 'a long enough password';

async function startJwks() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/v3/certs`;
  const sign = async (
    claims: Record<string, unknown>,
    options: { audience?: string; issuer?: string; expiresIn?: string | number; key?: CryptoKey } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(options.issuer ?? 'https://accounts.google.com')
      .setAudience(options.audience ?? GOOGLE_CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '1h')
      .sign(options.key ?? privateKey);
  return { url, sign, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

for (const mode of testModes) {
  describe(`accounts (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;
    let jwks: Awaited<ReturnType<typeof startJwks>>;
    const api = (method: string, route: string, options?: { token?: string; body?: unknown }) => callApi(spendgate.url, method, route, options);

    beforeAll(async () => {
      mail = await startMailSink();
      jwks = await startJwks();
      spendgate = await startSpendgate(mode, 'api-accounts', {
        env: { SMTP_URL: mail.url, GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: jwks.url, PUBLIC_URL: 'https://console.spendgate.test' },
      });
    });
    afterAll(async () => {
      await spendgate?.close();
      await mail?.close();
      await jwks?.close();
    });

    it('registers on a plan’s 60-day trial, or the free trial without one', async () => {
      const plans = (await api('GET', '/subscription/plans')).body.data as { id: string; slug: string }[];
      const growth = plans.find((plan) => plan.slug === 'growth')!;
      const answer = await api('POST', `/auth/register?planId=${growth.id}`, { body: { email: 'Grace@Example.com', password: PASSWORD, name: 'Grace' } });
      expect(answer.status).toBe(201);
      expect(answer.body.data.token).toEqual(expect.any(String));
      expect(answer.body.data.user).toMatchObject({ email: 'grace@example.com', name: 'Grace', emailVerified: false });
      const { subscription } = answer.body.data.user;
      expect(subscription).toMatchObject({ plan: 'growth', status: 'trialing', isTrialing: true });
      const days = (Date.parse(subscription.trialEnd) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(59.9);
      expect(days).toBeLessThanOrEqual(60);

      const plain = await api('POST', '/auth/register', { body: { email: 'plain@example.com', password: PASSWORD, name: 'Plain' } });
      expect(plain.body.data.user.subscription).toMatchObject({ plan: 'free-trial', status: 'trialing' });

      const enterprise = plans.find((plan) => plan.slug === 'enterprise')!;
      for (const [query, message] of [
        [`?planId=${enterprise.id}`, 'planId: the Enterprise plan is arranged with our sales team'],
        ['?planId=8a0f2f9e-51b1-4a43-9f54-5f3bbd1b7f7a', 'planId: no such plan'],
        ['?planId=growth', 'planId: must be a plan id'],
      ]) {
        const refused = await api('POST', `/auth/register${query}`, { body: { email: 'later@example.com', password: PASSWORD, name: 'L' } });
        expect([refused.status, refused.body.field, refused.body.message]).toEqual([400, 'planId', message]);
      }
    });

    it('refuses short, long and common passwords, naming the field', async () => {
      for (const [password, message] of [
        ['short', 'password: must be at least 8 characters'],
        ['x'.repeat(129), 'password: must be at most 128 characters'],
        ['password1', 'password is too common; choose a less guessable one'],
        ['Qwerty123', 'password is too common; choose a less guessable one'],
      ]) {
        const answer = await api('POST', '/auth/register', { body: { email: 'weak@example.com', password, name: 'Weak' } });
        expect([answer.status, answer.body.field, answer.body.message]).toEqual([400, 'password', message]);
      }
      expect((await api('POST', '/auth/check-email', { body: { email: 'weak@example.com' } })).body.data).toEqual({ exists: false });
    });

    it('signs in, checks emails, and refuses wrong passwords, then rate limits with Retry-After', async () => {
      const login = await api('POST', '/auth/login', { body: { email: 'GRACE@example.com', password: PASSWORD } });
      expect(login.status).toBe(200);
      expect(login.body.data.user.email).toBe('grace@example.com');
      expect((await api('POST', '/auth/check-email', { body: { email: 'grace@example.com' } })).body.data).toEqual({ exists: true });
      expect((await api('POST', '/auth/check-email', { body: { email: 'nope' } })).body.field).toBe('email');

      const wrong = await api('POST', '/auth/login', { body: { email: 'plain@example.com', password: 'not the password' } });
      expect([wrong.status, wrong.body.message]).toEqual([401, 'Invalid email or password']);
      for (let attempt = 2; attempt <= 10; attempt++) {
        expect((await api('POST', '/auth/login', { body: { email: 'plain@example.com', password: 'nope nope' } })).status).toBe(401);
      }
      const limited = await fetch(`${spendgate.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'plain@example.com', password: PASSWORD }),
      });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.json()).toMatchObject({ success: false, code: 'rate_limited' });
      // Another account from the same address is not limited by this one's failures.
      expect((await api('POST', '/auth/login', { body: { email: 'grace@example.com', password: PASSWORD } })).status).toBe(200);
    });

    it('answers 401 for a missing, invalid or expired session', async () => {
      const { token } = await registerUser(spendgate.url, 'session@example.com');
      expect((await api('GET', '/auth/profile', { token })).body.data.user.email).toBe('session@example.com');
      const expired = await new SignJWT({ email: 'session@example.com', name: 'x', avatar: null, sv: 0 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject((await api('GET', '/auth/profile', { token })).body.data.user.id)
        .setIssuer('spendgate')
        .setAudience('spendgate-console')
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(new TextEncoder().encode(spendgate.app.runtime.config.secrets.jwtSecret));
      for (const bad of [undefined, 'garbage', `${token}x`, expired]) {
        const answer = await api('GET', '/auth/profile', bad === undefined ? {} : { token: bad });
        expect([answer.status, answer.body.message]).toEqual([401, 'Session expired. Please login again.']);
      }
    });

    it('updates the profile and merges metadata', async () => {
      const { token } = await registerUser(spendgate.url, 'profile@example.com');
      const renamed = await api('PATCH', '/auth/update-profile', { token, body: { name: 'Ada L.', avatar: 'https://img.example.com/a.png' } });
      expect(renamed.body.data.user).toMatchObject({ name: 'Ada L.', avatar: 'https://img.example.com/a.png' });
      expect((await api('PATCH', '/auth/update-profile', { token, body: { avatar: 'not a url' } })).body.field).toBe('avatar');
      expect((await api('PATCH', '/auth/update-profile', { token, body: {} })).status).toBe(400);
      expect((await api('PATCH', '/auth/update-profile', { body: { name: 'x' } })).status).toBe(401);

      await api('PATCH', '/auth/update-metadata', { token, body: { metadata: { theme: 'dark', onboarding: { step: 2 } } } });
      const merged = await api('PATCH', '/auth/update-metadata', { token, body: { metadata: { onboarding: null, locale: 'en-GB' } } });
      expect(merged.body.data.user.metadata).toEqual({ theme: 'dark', locale: 'en-GB' });
      expect((await api('GET', '/auth/profile', { token })).body.data.user.metadata).toEqual({ theme: 'dark', locale: 'en-GB' });
      const invalid = await api('PATCH', '/auth/update-metadata', { token, body: { metadata: 'dark' } });
      expect([invalid.status, invalid.body.field]).toEqual([400, 'metadata']);
    });

    it('changes the password with the current one, ending older sessions', async () => {
      const { token } = await registerUser(spendgate.url, 'change@example.com');
      const wrong = await api('PATCH', '/auth/update-password', { token, body: { currentPassword: 'not it at all', newPassword: 'a brand new passphrase' } });
      expect([wrong.status, wrong.body.field]).toEqual([400, 'currentPassword']);
      const common = await api('PATCH', '/auth/update-password', { token, body: { currentPassword: PASSWORD, newPassword: 'iloveyou' } });
      expect([common.status, common.body.field]).toEqual([400, 'newPassword']);
      const changed = await api('PATCH', '/auth/update-password', { token, body: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' } });
      expect(changed.status).toBe(200);
      expect((await api('GET', '/auth/profile', { token })).status).toBe(401);
      expect((await api('GET', '/auth/profile', { token: changed.body.data.token })).status).toBe(200);
      expect((await api('POST', '/auth/login', { body: { email: 'change@example.com', password: PASSWORD } })).status).toBe(401);
      expect((await api('POST', '/auth/login', { body: { email: 'change@example.com', password: 'a brand new passphrase' } })).status).toBe(200);
    });

    it('confirms a new email with a mailed code before registering, once, and limits resends', async () => {
      const email = 'newcomer@example.com';
      const sent = await api('POST', '/auth/send-register-email-otp', { body: { email } });
      expect(sent.status).toBe(200);
      const message = await mail.next(email);
      expect(message.subject).toBe('Your Spendgate sign-up code');
      const code = codeIn(message);
      const stored = await spendgate.app.runtime.stores.sql.db.selectFrom('email_otps').selectAll().where('email', '=', email).execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).not.toContain(code);

      const resend = await api('POST', '/auth/send-register-email-otp', { body: { email } });
      expect(resend.status).toBe(429);
      const wrongCode = code === '000000' ? '111111' : '000000';
      expect((await api('POST', '/auth/verify-email-otp', { body: { email, otp: wrongCode } })).body.message).toBe('otp is incorrect');
      expect((await api('POST', '/auth/verify-email-otp', { body: { email, otp: '12ab' } })).body.field).toBe('otp');
      expect((await api('POST', '/auth/verify-email-otp', { body: { email, otp: code } })).body.data).toEqual({ verified: true, user: null });
      const reused = await api('POST', '/auth/verify-email-otp', { body: { email, otp: code } });
      expect([reused.status, reused.body.field]).toEqual([400, 'otp']);

      const registered = await api('POST', '/auth/register', { body: { email, password: PASSWORD, name: 'New' } });
      expect(registered.body.data.user.emailVerified).toBe(true);
      const taken = await api('POST', '/auth/send-register-email-otp', { body: { email } });
      expect(taken.status).toBe(409);
    });

    it('locks a code after five wrong tries and refuses an expired one', async () => {
      const email = 'tries@example.com';
      await registerUser(spendgate.url, email);
      await api('POST', '/auth/send-email-otp', { body: { email } });
      const code = codeIn(await mail.next(email));
      const wrongCode = code === '000000' ? '111111' : '000000';
      const answers = [];
      for (let attempt = 1; attempt <= 5; attempt++) {
        answers.push((await api('POST', '/auth/verify-email-otp', { body: { email, otp: wrongCode } })).body.message);
      }
      expect(answers).toEqual([...Array(4).fill('otp is incorrect'), 'otp: too many wrong tries. Please request a new code.']);
      const afterLock = await api('POST', '/auth/verify-email-otp', { body: { email, otp: code } });
      expect([afterLock.status, afterLock.body.message]).toEqual([400, 'otp is invalid or has expired. Please request a new code.']);

      const other = 'expiry@example.com';
      const { token } = await registerUser(spendgate.url, other);
      await api('POST', '/auth/send-email-otp', { body: { email: other } });
      const otherCode = codeIn(await mail.next(other));
      await spendgate.app.runtime.stores.sql.db
        .updateTable('email_otps')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('email', '=', other)
        .execute();
      expect((await api('POST', '/auth/verify-email-otp', { body: { email: other, otp: otherCode } })).status).toBe(400);
      expect((await api('GET', '/auth/profile', { token })).body.data.user.emailVerified).toBe(false);
    });

    it('verifies an account’s email, and says the same for unknown emails without mailing them', async () => {
      const email = 'verify@example.com';
      const { token } = await registerUser(spendgate.url, email);
      const sent = await api('POST', '/auth/send-email-otp', { body: { email } });
      const unknown = await api('POST', '/auth/send-email-otp', { body: { email: 'ghost@example.com' } });
      expect(unknown.body.message).toBe(sent.body.message);
      const verified = await api('POST', '/auth/verify-email-otp', { body: { email, otp: codeIn(await mail.next(email)) } });
      expect(verified.body.data.user.emailVerified).toBe(true);
      expect((await api('GET', '/auth/profile', { token })).body.data.user.emailVerified).toBe(true);
      expect(mail.countTo('ghost@example.com')).toBe(0);
    });

    it('resets a forgotten password with a mailed code, ending older sessions', async () => {
      const email = 'forgetful@example.com';
      const { token } = await registerUser(spendgate.url, email);
      expect((await api('POST', '/auth/forgot-password', { body: { email } })).status).toBe(200);
      const message = await mail.next(email);
      expect(message.subject).toBe('Reset your Spendgate password');
      const code = codeIn(message);
      const weak = await api('POST', '/auth/reset-password', { body: { email, otp: code, newPassword: 'password' } });
      expect([weak.status, weak.body.field]).toEqual([400, 'newPassword']);
      const reset = await api('POST', '/auth/reset-password', { body: { email, otp: code, newPassword: 'remembered at last' } });
      expect(reset.status).toBe(200);
      expect(reset.body.data.user.emailVerified).toBe(true);
      expect((await api('GET', '/auth/profile', { token })).status).toBe(401);
      expect((await api('POST', '/auth/login', { body: { email, password: 'remembered at last' } })).status).toBe(200);
      const again = await api('POST', '/auth/reset-password', { body: { email, otp: code, newPassword: 'yet another phrase' } });
      expect([again.status, again.body.field]).toEqual([400, 'otp']);
      const unknown = await api('POST', '/auth/reset-password', { body: { email: 'ghost@example.com', otp: code, newPassword: 'yet another phrase' } });
      expect([unknown.status, unknown.body.field]).toEqual([400, 'otp']);
    });

    it('signs in with Google: verifies signature, audience, issuer, expiry and verified email', async () => {
      const claims = { sub: 'google-123', email: 'Gina@Gmail.com', email_verified: true, name: 'Gina', picture: 'https://lh3.example.com/g.png' };
      const first = await api('POST', '/auth/google', { body: { token: await jwks.sign(claims) } });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ isNewUser: true, user: { email: 'gina@gmail.com', name: 'Gina', emailVerified: true, avatar: claims.picture } });
      expect((await api('GET', '/auth/profile', { token: first.body.data.token })).status).toBe(200);
      const second = await api('POST', '/auth/google', { body: { token: await jwks.sign(claims) } });
      expect(second.body.data).toMatchObject({ isNewUser: false, user: { id: first.body.data.user.id } });

      // An existing password account with that email is linked, not duplicated.
      const { userId } = await registerUser(spendgate.url, 'linked@example.com');
      const linked = await api('POST', '/auth/google', { body: { token: await jwks.sign({ ...claims, sub: 'google-456', email: 'linked@example.com' }) } });
      expect(linked.body.data).toMatchObject({ isNewUser: false, user: { id: userId, emailVerified: true } });

      const { privateKey: strangerKey } = await generateKeyPair('RS256');
      const refused = [
        await jwks.sign(claims, { audience: 'someone-else.apps.googleusercontent.com' }),
        await jwks.sign(claims, { issuer: 'https://evil.example.com' }),
        await jwks.sign(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
        await jwks.sign({ ...claims, email_verified: false }),
        await jwks.sign(claims, { key: strangerKey }),
        'not.a.jwt',
      ];
      for (const token of refused) {
        const answer = await api('POST', '/auth/google', { body: { token } });
        expect([answer.status, answer.body.message]).toEqual([401, 'Google sign-in failed: the token is not valid']);
      }
      expect((await api('POST', '/auth/google', { body: {} })).body.field).toBe('token');
    });

    it('keeps every message in the outbox, marked sent', async () => {
      const rows = await spendgate.app.runtime.stores.sql.db.selectFrom('mail_outbox').select(['to_address', 'status']).execute();
      expect(rows.map((row) => row.to_address).sort()).toEqual(mail.messages.map((message) => message.to).sort());
      expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['sent']));
    });
  });
}
