/**
 * Accounts end to end, in every run mode, with mail read from a real SMTP server:
 * registration (plan trials, password rules, a mailed code), what an unverified session
 * may do, sign-in and its rate limit, sessions (expired, invalid, without exp, ended by
 * a password change), profile (avatars) and metadata, one-time codes (hashed, single
 * use, expiring, five tries, resend limit), the forgot-password flow, Google sign-in
 * verified against a local Google's keys (linking a verified account, taking over one
 * never verified, a new account on the plan signed up for, the button's configuration
 * for the console), and the throttle on telling whether an address has an account.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogle, GOOGLE_CLIENT_ID, startFakeGoogle } from '../fakes/google.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { codeIn, type MailSink, registerUser, startMailSink } from './support.ts';

const PASSWORD = 'a long enough password';

for (const mode of testModes) {
  describe(`accounts (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;
    let fakeGoogle: FakeGoogle;
    const api = (method: string, route: string, options?: { token?: string; body?: unknown }) => callApi(spendgate.url, method, route, options);
    /** Registers without verifying; waits for the sign-up code's mail, so later mail to the address is the next one. */
    const registerUnverified = async (email: string, password = PASSWORD) => {
      const answer = await api('POST', '/auth/register', { body: { email, password, name: email.split('@')[0] } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      const signUpMail = await mail.next(email);
      return { token: answer.body.data.token as string, userId: answer.body.data.user.id as string, code: codeIn(signUpMail), signUpMail };
    };
    const signJwt = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('spendgate').setAudience('spendgate-console');
    const jwtSecret = () => new TextEncoder().encode(spendgate.app.runtime.config.secrets.jwtSecret);

    beforeAll(async () => {
      mail = await startMailSink();
      fakeGoogle = await startFakeGoogle();
      spendgate = await startSpendgate(mode, 'api-accounts', {
        env: { SMTP_URL: mail.url, GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: fakeGoogle.jwksUrl, PUBLIC_URL: 'https://console.spendgate.test' },
      });
    });
    afterAll(async () => {
      await spendgate?.close();
      await mail?.close();
      await fakeGoogle?.close();
    });

    it('registers on a plan’s 60-day trial, or the free trial without one', async () => {
      const plans = (await api('GET', '/subscription/plans')).body.data as { id: string; slug: string }[];
      const growth = plans.find((plan) => plan.slug === 'growth')!;
      const answer = await api('POST', `/auth/register?planId=${growth.id}`, { body: { email: 'Grace@Example.com', password: PASSWORD, name: 'Grace' } });
      expect(answer.status).toBe(201);
      expect(answer.body.data.token).toEqual(expect.any(String));
      expect(answer.body.data.user).toMatchObject({ email: 'grace@example.com', name: 'Grace', emailVerified: false });
      expect((await mail.next('grace@example.com')).subject).toBe('Your Spendgate sign-up code');
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

    it('gives an unverified session only the profile until the mailed code verifies it, then a full session', async () => {
      const email = 'unverified@example.com';
      const { token, code } = await registerUnverified(email);
      expect((await api('GET', '/auth/profile', { token })).body.data.user).toMatchObject({ email, emailVerified: false });
      expect((await api('PATCH', '/auth/update-profile', { token, body: { name: 'Still Unverified' } })).status).toBe(200);
      const privileged: [string, string, unknown][] = [
        ['POST', '/team/', { name: 'Squat' }],
        ['GET', '/team/', undefined],
        ['GET', '/synthetic-group', undefined],
        ['POST', '/provider/connections', { teamId: '8a0f2f9e-51b1-4a43-9f54-5f3bbd1b7f7a', provider: 'openai', name: 'x', apiKey: 'k' }],
        ['POST', '/provider/test/connection', { provider: 'openai', apiKey: 'k' }],
        ['POST', '/budgets', { scope: 'team', scopeId: '8a0f2f9e-51b1-4a43-9f54-5f3bbd1b7f7a', amount: '10', window: 'day', mode: 'hard' }],
        ['PATCH', '/auth/update-metadata', { metadata: { theme: 'dark' } }],
        ['PATCH', '/auth/update-password', { currentPassword: PASSWORD, newPassword: 'another long passphrase' }],
      ];
      const refusals = async (sessionToken: string) => {
        const answers = [];
        for (const [method, route, body] of privileged) {
          const answer = await api(method, route, { token: sessionToken, ...(body === undefined ? {} : { body }) });
          answers.push([method, route, answer.status, (answer.body as { code?: string }).code]);
        }
        return answers;
      };
      expect(await refusals(token)).toEqual(privileged.map(([method, route]) => [method, route, 403, 'email_not_verified']));
      expect((await api('POST', '/team/', { token, body: { name: 'Squat' } })).body.message).toBe(
        'Verify your email address first: enter the code we emailed you, or ask for a new one.',
      );
      // Signing in again gives the same unverified session.
      const login = await api('POST', '/auth/login', { body: { email, password: PASSWORD } });
      expect(login.body.data.user.emailVerified).toBe(false);
      expect((await api('GET', '/team/', { token: login.body.data.token })).status).toBe(403);

      // The code verifies the account only with its session: not for someone who is not signed in to it.
      const anonymous = await api('POST', '/auth/verify-email-otp', { body: { email, otp: code } });
      expect([anonymous.status, anonymous.body.field]).toEqual([400, 'otp']);
      expect((await api('GET', '/auth/profile', { token })).body.data.user.emailVerified).toBe(false);

      const verified = await api('POST', '/auth/verify-email-otp', { token, body: { email, otp: code } });
      expect(verified.status).toBe(200);
      expect(verified.body.data).toMatchObject({ verified: true, token: expect.any(String), user: { email, emailVerified: true } });
      const full = verified.body.data.token as string;
      expect((await api('POST', '/team/', { token: full, body: { name: 'Verified Co' } })).status).toBe(201);
      expect((await api('GET', '/team/', { token: full })).body.data).toEqual([expect.objectContaining({ name: 'Verified Co' })]);
      // The token signed before verification stays limited; signing in now gives a full one.
      expect((await api('GET', '/team/', { token })).status).toBe(403);
      const again = await api('POST', '/auth/login', { body: { email, password: PASSWORD } });
      expect((await api('GET', '/team/', { token: again.body.data.token })).status).toBe(200);
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
      const userId = (await api('GET', '/auth/profile', { token })).body.data.user.id;
      const claims = { email: 'session@example.com', name: 'x', sv: 0, ev: true };
      const expired = await signJwt(claims)
        .setSubject(userId)
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(jwtSecret());
      // Signed with the server's secret and right in every other way, but it would never expire.
      const withoutExp = await signJwt(claims).setSubject(userId).setIssuedAt().sign(jwtSecret());
      const withExp = await signJwt(claims).setSubject(userId).setIssuedAt().setExpirationTime('1h').sign(jwtSecret());
      expect((await api('GET', '/team/', { token: withExp })).status).toBe(200);
      for (const bad of [undefined, 'garbage', `${token}x`, expired, withoutExp]) {
        const answer = await api('GET', '/auth/profile', bad === undefined ? {} : { token: bad });
        expect([answer.status, answer.body.message]).toEqual([401, 'Session expired. Please login again.']);
      }
    });

    it('updates the profile and merges metadata', async () => {
      const { token } = await registerUser(spendgate.url, 'profile@example.com');
      const renamed = await api('PATCH', '/auth/update-profile', { token, body: { name: 'Ada L.', avatar: 'https://img.example.com/a.png' } });
      expect(renamed.body.data.user).toMatchObject({ name: 'Ada L.', avatar: 'https://img.example.com/a.png' });
      const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
      expect((await api('PATCH', '/auth/update-profile', { token, body: { avatar: pixel } })).body.data.user.avatar).toBe(pixel);
      for (const avatar of [
        'not a url',
        'javascript:alert(document.cookie)',
        'JavaScript:alert(1)',
        'http://img.example.com/a.png',
        ' https://img.example.com/a.png',
        'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
        'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+',
        'data:image/png,<svg onload=alert(1)>',
        `data:image/png;base64,${'A'.repeat(40_000)}`,
        `https://img.example.com/${'a'.repeat(2048)}`,
      ]) {
        const refused = await api('PATCH', '/auth/update-profile', { token, body: { avatar } });
        expect([avatar.slice(0, 40), refused.status, refused.body.field]).toEqual([avatar.slice(0, 40), 400, 'avatar']);
      }
      expect((await api('GET', '/auth/profile', { token })).body.data.user.avatar).toBe(pixel);
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
      const { token: triesToken, code } = await registerUnverified(email);
      const wrongCode = code === '000000' ? '111111' : '000000';
      const answers = [];
      for (let attempt = 1; attempt <= 5; attempt++) {
        answers.push((await api('POST', '/auth/verify-email-otp', { token: triesToken, body: { email, otp: wrongCode } })).body.message);
      }
      expect(answers).toEqual([...Array(4).fill('otp is incorrect'), 'otp: too many wrong tries. Please request a new code.']);
      const afterLock = await api('POST', '/auth/verify-email-otp', { token: triesToken, body: { email, otp: code } });
      expect([afterLock.status, afterLock.body.message]).toEqual([400, 'otp is invalid or has expired. Please request a new code.']);

      const other = 'expiry@example.com';
      const { token, code: otherCode } = await registerUnverified(other);
      await spendgate.app.runtime.stores.sql.db
        .updateTable('email_otps')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('email', '=', other)
        .execute();
      expect((await api('POST', '/auth/verify-email-otp', { token, body: { email: other, otp: otherCode } })).status).toBe(400);
      expect((await api('GET', '/auth/profile', { token })).body.data.user.emailVerified).toBe(false);
    });

    it('verifies an account’s email with a new code, and says the same for unknown emails without mailing them', async () => {
      const email = 'verify@example.com';
      const { token } = await registerUnverified(email);
      const sent = await api('POST', '/auth/send-email-otp', { body: { email } });
      const unknown = await api('POST', '/auth/send-email-otp', { body: { email: 'ghost@example.com' } });
      expect(unknown.body.message).toBe(sent.body.message);
      const code = codeIn(await mail.next(email, 1));
      const verified = await api('POST', '/auth/verify-email-otp', { token, body: { email, otp: code } });
      expect(verified.body.data.user.emailVerified).toBe(true);
      expect((await api('GET', '/auth/profile', { token })).body.data.user.emailVerified).toBe(true);
      expect(mail.countTo('ghost@example.com')).toBe(0);
    });

    it('resets a forgotten password with a mailed code, ending older sessions', async () => {
      const email = 'forgetful@example.com';
      const { token } = await registerUser(spendgate.url, email);
      await mail.next(email); // the sign-up code
      expect((await api('POST', '/auth/forgot-password', { body: { email } })).status).toBe(200);
      const message = await mail.next(email, 1);
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
      const first = await api('POST', '/auth/google', { body: { token: await fakeGoogle.sign(claims) } });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ isNewUser: true, user: { email: 'gina@gmail.com', name: 'Gina', emailVerified: true, avatar: claims.picture } });
      expect((await api('GET', '/auth/profile', { token: first.body.data.token })).status).toBe(200);
      const second = await api('POST', '/auth/google', { body: { token: await fakeGoogle.sign(claims) } });
      expect(second.body.data).toMatchObject({ isNewUser: false, user: { id: first.body.data.user.id } });

      // An existing password account whose email was verified is linked, not duplicated, and keeps its password and sessions.
      const { userId, token: linkedToken } = await registerUser(spendgate.url, 'linked@example.com');
      const linked = await api('POST', '/auth/google', { body: { token: await fakeGoogle.sign({ ...claims, sub: 'google-456', email: 'linked@example.com' }) } });
      expect(linked.body.data).toMatchObject({ isNewUser: false, user: { id: userId, emailVerified: true } });
      expect((await api('GET', '/team/', { token: linkedToken })).status).toBe(200);
      expect((await api('POST', '/auth/login', { body: { email: 'linked@example.com', password: PASSWORD } })).status).toBe(200);

      const { privateKey: strangerKey } = await generateKeyPair('RS256');
      const refused = [
        await fakeGoogle.sign(claims, { audience: 'someone-else.apps.googleusercontent.com' }),
        await fakeGoogle.sign(claims, { issuer: 'https://evil.example.com' }),
        await fakeGoogle.sign(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
        await fakeGoogle.sign({ ...claims, email_verified: false }),
        await fakeGoogle.sign(claims, { key: strangerKey }),
        'not.a.jwt',
      ];
      for (const token of refused) {
        const answer = await api('POST', '/auth/google', { body: { token } });
        expect([answer.status, answer.body.message]).toEqual([401, 'Google sign-in failed: the token is not valid']);
      }
      expect((await api('POST', '/auth/google', { body: {} })).body.field).toBe('token');
    });

    it('tells the console how to draw Google’s button, and starts a new Google account on the plan it signed up for', async () => {
      const options = await api('GET', '/auth/sign-in-options');
      expect(options.body.data).toEqual({ google: { clientId: GOOGLE_CLIENT_ID, scriptUrl: 'https://accounts.google.com/gsi/client' } });

      const plans = (await api('GET', '/subscription/plans')).body.data as { id: string; slug: string }[];
      const growth = plans.find((plan) => plan.slug === 'growth')!;
      const claims = { sub: 'google-growth', email: 'gabe@growth.example', email_verified: true, name: 'Gabe' };
      const refused = await api('POST', '/auth/google?planId=growth', { body: { token: await fakeGoogle.sign(claims) } });
      expect([refused.status, refused.body.field]).toEqual([400, 'planId']);
      const created = await api('POST', `/auth/google?planId=${growth.id}`, { body: { token: await fakeGoogle.sign(claims) } });
      expect(created.body.data).toMatchObject({ isNewUser: true, user: { subscription: { plan: 'growth', status: 'trialing' } } });
      // An existing account keeps its plan: the link only signs it in.
      const again = await api('POST', '/auth/google', { body: { token: await fakeGoogle.sign(claims) } });
      expect(again.body.data).toMatchObject({ isNewUser: false, user: { subscription: { plan: 'growth' } } });

      // How each account signs in: Google only; a password only; a password account later linked to Google.
      const methodsOf = async (token: string) => (await api('GET', '/auth/sign-in-methods', { token })).body.data;
      expect(await methodsOf(created.body.data.token)).toEqual({ password: false, google: true, singleSignOn: [] });
      const { token: passwordOnly } = await registerUser(spendgate.url, 'pat@password.example');
      expect(await methodsOf(passwordOnly)).toEqual({ password: true, google: false, singleSignOn: [] });
      await api('POST', '/auth/google', { body: { token: await fakeGoogle.sign({ sub: 'google-pat', email: 'pat@password.example', email_verified: true, name: 'Pat' }) } });
      expect(await methodsOf(passwordOnly)).toEqual({ password: true, google: true, singleSignOn: [] });
      expect((await api('GET', '/auth/sign-in-methods')).status).toBe(401);
    });

    it('lets Google sign-in take over an account whose email was never verified: the squatter’s password and sessions end', async () => {
      const victim = 'victim@gmail.com';
      const squatter = await registerUnverified(victim, 'the squatter’s password');
      await api('PATCH', '/auth/update-profile', { token: squatter.token, body: { name: 'Squatter', avatar: 'https://evil.example.com/me.png' } });

      const owner = await api('POST', '/auth/google', {
        body: { token: await fakeGoogle.sign({ sub: 'google-victim', email: victim, email_verified: true, name: 'Victoria', picture: 'javascript:alert(1)' }) },
      });
      expect(owner.status).toBe(200);
      expect(owner.body.data).toMatchObject({ isNewUser: true, user: { id: squatter.userId, email: victim, name: 'Victoria', avatar: null, emailVerified: true } });

      const squatterSession = await api('GET', '/auth/profile', { token: squatter.token });
      expect([squatterSession.status, squatterSession.body.message]).toEqual([401, 'Session expired. Please login again.']);
      const squatterLogin = await api('POST', '/auth/login', { body: { email: victim, password: 'the squatter’s password' } });
      expect([squatterLogin.status, squatterLogin.body.message]).toEqual([401, 'Invalid email or password']);
      expect((await api('POST', '/team/', { token: owner.body.data.token, body: { name: 'Victoria’s team' } })).status).toBe(201);
      const again = await api('POST', '/auth/google', { body: { token: await fakeGoogle.sign({ sub: 'google-victim', email: victim, email_verified: true }) } });
      expect(again.body.data).toMatchObject({ isNewUser: false, user: { id: squatter.userId } });
    });

    it('rate limits answers that tell whether an address has an account, per address and per client, with Retry-After', async () => {
      const check = (email: string) =>
        fetch(`${spendgate.url}/api/auth/check-email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
      const statuses = [];
      for (let attempt = 1; attempt <= 11; attempt++) statuses.push((await check('probe@example.com')).status);
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
      const limited = await check('probe@example.com');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.json()).toMatchObject({ success: false, code: 'rate_limited' });

      // One client reaches its hourly limit however many addresses it asks about, and register shares it.
      let asked = 0;
      while ((await check(`probe-${asked}@example.com`)).status === 200) asked++;
      expect(asked).toBeLessThan(60);
      const register = await api('POST', '/auth/register', { body: { email: 'one-more@example.com', password: PASSWORD, name: 'More' } });
      expect([register.status, (register.body as { code?: string }).code]).toEqual([429, 'rate_limited']);
      expect((await api('POST', '/auth/send-register-email-otp', { body: { email: 'one-more@example.com' } })).status).toBe(429);
    });

    it('keeps every message in the outbox, marked sent', async () => {
      const outbox = () => spendgate.app.runtime.stores.sql.db.selectFrom('mail_outbox').select(['to_address', 'status']).execute();
      const stored = (await outbox()).length;
      await expect.poll(() => mail.messages.length, { timeout: 10_000 }).toBe(stored);
      const rows = await outbox();
      expect(rows.map((row) => row.to_address).sort()).toEqual(mail.messages.map((message) => message.to).sort());
      expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['sent']));
    });
  });
}
