// Single sign-on through the API, in both run modes, against a real OpenID Provider on
// loopback (e2e/fakes/oidc-idp.ts: oidc-provider, its login and consent pages walked over
// HTTP): an Enterprise team's admin configures the IdP (secret sealed, never answered,
// audited; fields checked, 400 naming them; a domain one IdP's only, 409; other plans 403);
// a person of the domain signs in — discovery, PKCE, state used once — and their account is
// made just in time in the team with the roles their IdP groups map to, which a later sign-in
// updates; ID tokens with a wrong nonce, audience or expiry are refused; enforced, the
// domain's password and Google sign-in, registration and reset are refused. A domain signs
// people in, and is enforced, only once its owner proved it by DNS: a real node:dns Resolver
// asks a local DNS server (e2e/fakes/dns-server.ts) for its TXT record, and NXDOMAIN, no
// record, a wrong token, SERVFAIL and silence each say so. Accounts are linked by the IdP's
// (issuer, subject): a changed address signs in to the same account, and another subject
// presenting a linked account's address is refused.
import { SSO_REQUIRED_MESSAGE } from '@spendgate/core';
import { upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../fakes/dns-server.ts';
import { type FakeIdp, startFakeIdp } from '../fakes/oidc-idp.ts';
import { freePort } from '../support/free-port.ts';
import { type FakeGoogle, GOOGLE_CLIENT_ID, startFakeGoogle } from '../fakes/google.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

/** New people who sign in for the first time from two tabs at once. */
const TWO_TABS = ['tess@acme.example', 'uma@acme.example', 'vic@acme.example'];

describe.each(testModes)('single sign-on (%s)', (mode) => {
  let spendgate: RunningSpendgate;
  let idp: FakeIdp;
  let dns: FakeDns;
  let fakeGoogle: FakeGoogle;
  const challenge = '_spendgate-challenge.acme.example';
  const admin = { token: '', userId: '', teamId: '', groupId: '' };
  const rival = { token: '', teamId: '' };
  const trial = { token: '', userId: '', teamId: '' };
  let settings: Record<string, unknown>;

  const api = (method: string, route: string, body?: unknown, token = admin.token) => callApi(spendgate.url, method, route, { token, body });
  const db = () => spendgate.app.runtime.stores.sql.db;
  const enterprise = (userId: string) => upsertSubscription(db(), { userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
  const teamRoleOf = async (email: string) =>
    (await db().selectFrom('team_members').innerJoin('users', 'users.id', 'team_members.user_id').select('team_members.role').where('users.email', '=', email).where('team_members.team_id', '=', admin.teamId).executeTakeFirst())?.role;
  const groupRoleOf = async (email: string) =>
    (await db().selectFrom('synthetic_group_members').innerJoin('users', 'users.id', 'synthetic_group_members.user_id').select('synthetic_group_members.role').where('users.email', '=', email).where('synthetic_group_members.group_id', '=', admin.groupId).executeTakeFirst())?.role;
  /** Starts at Spendgate, signs in at the IdP, and hands what it sent back to Spendgate's callback. */
  async function signInWithSso(email: string, login = email) {
    const started = await api('POST', '/auth/sso/start', { email }, '');
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const params = await idp.signIn(started.body.data.url, login);
    return { params, answer: await api('POST', '/auth/sso/callback', { params }, '') };
  }

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    idp = await startFakeIdp({
      redirectUri: `${publicUrl}/sso/callback`,
      people: [
        { email: 'ada@acme.example', name: 'Ada Lovelace', groups: ['platform', 'search-team'] },
        { email: 'grace@acme.example', name: 'Grace Hopper', groups: ['search-team'] },
        { email: 'linus@acme.example', name: 'Linus', groups: ['contractors'] },
        { email: 'eve@acme.example', name: 'Eve', groups: ['search-team'], emailVerified: false },
        { email: 'bob@acme.example', name: 'Bob', groups: ['search-team'] },
        ...TWO_TABS.map((email) => ({ email, name: email.slice(0, email.indexOf('@')), groups: ['search-team'] })),
      ],
    });
    dns = await startFakeDns();
    fakeGoogle = await startFakeGoogle();
    spendgate = await startSpendgate(mode, `sso-${mode}`, { port, env: { PUBLIC_URL: publicUrl, DNS_SERVERS: dns.server, GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: fakeGoogle.jwksUrl } });
    Object.assign(admin, await signUp(spendgate.url, 'owner@spendgate-tests.example'));
    await enterprise(admin.userId);
    admin.teamId = (await api('POST', '/team/', { name: 'Acme', description: '' })).body.data.id;
    admin.groupId = (await api('POST', '/synthetic-group/', { teamId: admin.teamId, name: 'Search' })).body.data.id;
    const other = await signUp(spendgate.url, 'owner@rival-tests.example');
    await enterprise(other.userId);
    rival.token = other.token;
    rival.teamId = (await api('POST', '/team/', { name: 'Rival', description: '' }, other.token)).body.data.id;
    const trialUser = await signUp(spendgate.url, 'owner@trial-tests.example');
    trial.token = trialUser.token;
    trial.userId = trialUser.userId;
    trial.teamId = (await api('POST', '/team/', { name: 'On trial', description: '' }, trialUser.token)).body.data.id;
    settings = {
      teamId: admin.teamId,
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      domains: ['Acme.example'],
      enforced: false,
      groupsClaim: 'groups',
      defaultTeamRole: null,
      mappings: [
        { idpGroup: 'platform', teamRole: 'ADMIN', groupId: null, groupRole: null },
        { idpGroup: 'search-team', teamRole: 'MEMBER', groupId: admin.groupId, groupRole: 'MAINTAINER' },
      ],
    };
  }, 120_000);
  afterAll(async () => {
    await spendgate?.close();
    await idp?.close();
    await dns?.close();
    await fakeGoogle?.close();
  });

  it('is Enterprise only: another plan is refused with 403 saying so, on every call', async () => {
    for (const [method, route, body] of [
      ['GET', `/sso?teamId=${trial.teamId}`, undefined],
      ['PUT', '/sso', { ...settings, teamId: trial.teamId }],
      ['DELETE', `/sso?teamId=${trial.teamId}`, undefined],
      ['GET', `/sso/identities?teamId=${trial.teamId}&userId=${trial.userId}`, undefined],
      ['DELETE', `/sso/identities?teamId=${trial.teamId}&userId=${trial.userId}`, undefined],
    ] as const) {
      const refused = await api(method, route, body, trial.token);
      expect(refused.status, `${method} ${route}`).toBe(403);
      expect(refused.body.message).toBe('Single sign-on is part of the Enterprise plan; the Free Trial plan does not include it');
    }
  });

  it('refuses bad settings with 400 naming the field', async () => {
    for (const [change, field] of [
      [{ issuer: 'not a url' }, 'issuer'],
      [{ issuer: 'http://10.0.0.7/realms/acme' }, 'issuer'],
      [{ issuer: 'http://sso.acme.test' }, 'issuer'],
      [{ domains: [] }, 'domains'],
      [{ domains: ['not a domain'] }, 'domains.0'],
      [{ domains: ['gmail.com'] }, 'domains'],
      [{ clientSecret: undefined }, 'clientSecret'],
      [{ enforced: 'yes' }, 'enforced'],
      [{ mappings: [{ idpGroup: 'x', teamRole: 'OWNER' }] }, 'mappings.0.teamRole'],
      [{ mappings: [{ idpGroup: 'x', teamRole: 'MEMBER', groupId: admin.groupId, groupRole: null }] }, 'mappings.0.groupRole'],
      [{ mappings: [{ idpGroup: 'x', teamRole: 'MEMBER', groupId: rival.teamId, groupRole: 'OBSERVER' }] }, 'mappings.0.groupId'],
      [{ clientSecret: 'a wrong secret', issuer: `${idp.issuer}/nowhere` }, 'issuer'],
    ] as const) {
      const refused = await api('PUT', '/sso', { ...settings, ...change });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.field, JSON.stringify(change)).toBe(field);
    }
    expect((await api('GET', `/sso?teamId=${admin.teamId}`)).body.data).toEqual({ provider: null });
  });

  it('saves the IdP: the secret sealed at rest and never answered, the change audited', async () => {
    const saved = await api('PUT', '/sso', settings);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.provider).toEqual({
      teamId: admin.teamId,
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecretSet: true,
      domains: ['acme.example'],
      domainVerification: [{ domain: 'acme.example', record: { type: 'TXT', name: challenge, value: expect.stringMatching(/^spendgate-domain-verification=[0-9a-f]{32}$/) }, verifiedAt: null }],
      enforced: false,
      groupsClaim: 'groups',
      defaultTeamRole: null,
      mappings: settings.mappings,
      redirectUri: `${spendgate.url}/sso/callback`,
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(saved.body)).not.toContain(idp.clientSecret);
    const stored = await db().selectFrom('sso_providers').selectAll().where('team_id', '=', admin.teamId).executeTakeFirstOrThrow();
    expect(Buffer.from(stored.secret_ciphertext).toString('latin1')).not.toContain(idp.clientSecret);
    const audit = await db().selectFrom('audit_log').selectAll().where('team_id', '=', admin.teamId).where('action', '=', 'sso.configured').execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]!.details)).not.toContain(idp.clientSecret);
    expect(JSON.stringify([audit[0]!.before, audit[0]!.after])).not.toContain(idp.clientSecret);
    expect([audit[0]!.details, audit[0]!.before]).toEqual([{ clientSecret: '[redacted]' }, null]);
    expect(audit[0]!.after).toMatchObject({ issuer: idp.issuer, domains: ['acme.example'] });
    // Saved again without the secret, the stored one stays.
    expect((await api('PUT', '/sso', { ...settings, clientSecret: undefined })).status).toBe(200);
  });

  it('lets a domain belong to one team’s IdP only (409), and only admins configure it', async () => {
    const claimed = await api('PUT', '/sso', { ...settings, teamId: rival.teamId, domains: ['rival.example', 'acme.example'], mappings: [] }, rival.token);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(409);
    expect(claimed.body.message).toBe("acme.example already belongs to another team's identity provider");
    expect((await api('GET', `/sso?teamId=${admin.teamId}`, undefined, rival.token)).status).toBe(404);
  });

  it('proves the domain by its DNS TXT record before it signs people in or is enforced', async () => {
    const { value } = (await api('GET', `/sso?teamId=${admin.teamId}`)).body.data.provider.domainVerification[0].record;
    const early = await api('POST', '/auth/sso/start', { email: 'ada@acme.example' }, '');
    expect([early.status, early.body.field, early.body.message]).toEqual([400, 'email', 'email: acme.example is not verified for single sign-on yet; ask your administrator, or use your password']);
    const enforcing = await api('PUT', '/sso', { ...settings, clientSecret: undefined, enforced: true });
    expect([enforcing.status, enforcing.body.field, enforcing.body.message]).toEqual([400, 'enforced', "enforced: acme.example is not verified yet; publish each domain's TXT record and verify it before enforcing single sign-on"]);
    const verify = (domain = 'acme.example', token = admin.token) => api('POST', '/sso/verify-domain', { teamId: admin.teamId, domain }, token);
    const notVerified = 'domain: acme.example is not verified: ';
    for (const [behaviour, message] of [
      [undefined, `${challenge} does not exist (NXDOMAIN); publish the TXT record ${value} there, then verify again`],
      [{ txt: [] }, `${challenge} has no TXT record; publish ${value} there, then verify again`],
      [{ txt: ['v=spf1 -all', 'spendgate-domain-verification=0123456789abcdef0123456789abcdef'] }, `the TXT records at ${challenge} do not include ${value}`],
      ['servfail', `the DNS look-up of ${challenge} failed (SERVFAIL); try again later`],
      ['silent', `the DNS look-up of ${challenge} failed (timeout); try again later`],
    ] as const) {
      dns.set(challenge, behaviour);
      const started = Date.now();
      const refused = await verify();
      expect(Date.now() - started).toBeLessThan(7_000);
      expect([refused.status, refused.body.field, refused.body.message]).toEqual([400, 'domain', `${notVerified}${message}`]);
    }
    expect((await verify('other.example')).body).toMatchObject({ field: 'domain', message: "domain: other.example is not one of this identity provider's domains" });
    expect((await verify('acme.example', rival.token)).status).toBe(404);
    dns.set(challenge, { txt: ['v=spf1 -all', value] });
    const verified = await verify();
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.data.provider.domainVerification).toEqual([{ domain: 'acme.example', record: { type: 'TXT', name: challenge, value }, verifiedAt: expect.any(String) }]);
    expect(dns.questions).toContain(challenge);
    const audit = await db().selectFrom('audit_log').select(['details', 'before', 'after']).where('team_id', '=', admin.teamId).where('action', '=', 'sso.domain_verified').execute();
    expect(audit).toEqual([
      { details: { record: challenge }, before: { domain: 'acme.example', verifiedAt: null }, after: { domain: 'acme.example', verifiedAt: verified.body.data.provider.domainVerification[0].verifiedAt } },
    ]);
    // A domain added later starts unverified with a token of its own; the verified one stays verified.
    const added = await api('PUT', '/sso', { ...settings, clientSecret: undefined, domains: ['acme.example', 'labs.acme.example'] });
    expect(added.body.data.provider.domainVerification).toEqual([
      { domain: 'acme.example', record: { type: 'TXT', name: challenge, value }, verifiedAt: verified.body.data.provider.domainVerification[0].verifiedAt },
      { domain: 'labs.acme.example', record: { type: 'TXT', name: '_spendgate-challenge.labs.acme.example', value: expect.not.stringMatching(value) }, verifiedAt: null },
    ]);
  });

  it('signs a new person in just in time, in the team with the roles their IdP groups map to; the state works once', async () => {
    const { params, answer } = await signInWithSso('ada@acme.example');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.user).toMatchObject({ email: 'ada@acme.example', name: 'Ada Lovelace', emailVerified: true });
    expect(await teamRoleOf('ada@acme.example')).toBe('ADMIN');
    expect(await groupRoleOf('ada@acme.example')).toBe('MAINTAINER');
    const teams = await api('GET', '/team/', undefined, answer.body.data.token);
    expect(teams.status).toBe(200);
    expect(JSON.stringify(teams.body.data)).toContain(admin.teamId);
    const replayed = await api('POST', '/auth/sso/callback', { params }, '');
    expect(replayed.status).toBe(401);
    expect(replayed.body.message).toBe('This sign-in has expired or was already used: start signing in with SSO again');
  });

  it('updates an existing member’s roles from their groups at each sign-in', async () => {
    idp.person({ email: 'ada@acme.example', name: 'Ada Lovelace', groups: ['platform'] });
    // Ada is not the team's last admin (its owner is), so the mapping may demote her later.
    expect((await signInWithSso('ada@acme.example')).answer.status).toBe(200);
    expect(await teamRoleOf('ada@acme.example')).toBe('ADMIN');
    expect(await groupRoleOf('ada@acme.example')).toBeUndefined();
    idp.person({ email: 'ada@acme.example', name: 'Ada Lovelace', groups: ['search-team'] });
    expect((await signInWithSso('ada@acme.example')).answer.status).toBe(200);
    expect(await teamRoleOf('ada@acme.example')).toBe('MEMBER');
    expect(await groupRoleOf('ada@acme.example')).toBe('MAINTAINER');
    const changes = await db().selectFrom('audit_log').select(['action', 'details']).where('team_id', '=', admin.teamId).where('target_id', '=', (await db().selectFrom('users').select('id').where('email', '=', 'ada@acme.example').executeTakeFirstOrThrow()).id).orderBy('id').execute();
    expect(changes.map((change) => change.action)).toEqual(['member.joined', 'group.member_added', 'group.member_removed', 'member.role_changed', 'group.member_added']);
  });

  it('refuses ID tokens with a wrong nonce, audience or expiry, and makes no account', async () => {
    for (const [change, problem] of [
      [(claims: Record<string, unknown>) => ({ ...claims, nonce: 'another-sign-in' }), /"nonce"/],
      [(claims: Record<string, unknown>) => ({ ...claims, aud: 'someone-else' }), /"aud"/],
      [(claims: Record<string, unknown>) => ({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600 }), /"exp"/],
    ] as const) {
      idp.tamper(change);
      const { answer } = await signInWithSso('grace@acme.example').finally(() => idp.tamper(null));
      expect(answer.status, JSON.stringify(answer.body)).toBe(401);
      expect(answer.body.message).toMatch(/^Your identity provider's answer was refused: /);
      expect(answer.body.message, answer.body.message).toMatch(problem);
    }
    expect(await db().selectFrom('users').select('id').where('email', '=', 'grace@acme.example').executeTakeFirst()).toBeUndefined();
    expect((await signInWithSso('grace@acme.example')).answer.status).toBe(200);
    expect(await teamRoleOf('grace@acme.example')).toBe('MEMBER');
  });

  it('refuses a person in no mapped group, an unverified address, and an account outside the team', async () => {
    const unmapped = (await signInWithSso('linus@acme.example')).answer;
    expect(unmapped.status).toBe(403);
    expect(unmapped.body.message).toBe('Your identity provider account is in none of the groups this team lets in: ask your administrator');
    expect((await signInWithSso('eve@acme.example')).answer.status).toBe(401);
    await signUp(spendgate.url, 'bob@acme.example', { password: 'bob has a long password' });
    const outsider = (await signInWithSso('bob@acme.example')).answer;
    expect(outsider.status).toBe(403);
    expect(outsider.body.message).toBe('bob@acme.example already has a Spendgate account outside this team: ask a team admin to invite it, then sign in with SSO');
    const unknown = await api('POST', '/auth/sso/start', { email: 'someone@elsewhere.example' }, '');
    expect(unknown.status).toBe(400);
    expect(unknown.body.field).toBe('email');
  });

  it('links accounts by the IdP subject: a changed address signs in to the same account, another subject with a linked address is refused', async () => {
    const ada = await db().selectFrom('users').select('id').where('email', '=', 'ada@acme.example').executeTakeFirstOrThrow();
    expect(await db().selectFrom('sso_identities').select(['issuer', 'subject']).where('user_id', '=', ada.id).execute()).toEqual([{ issuer: idp.issuer, subject: 'ada@acme.example' }]);
    idp.person({ login: 'ada@acme.example', email: 'ada.lovelace@acme.example', name: 'Ada Lovelace', groups: ['search-team'] });
    const renamed = (await signInWithSso('ada.lovelace@acme.example', 'ada@acme.example')).answer;
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data.user.email).toBe('ada@acme.example');
    expect(await db().selectFrom('users').select('id').where('email', '=', 'ada.lovelace@acme.example').executeTakeFirst()).toBeUndefined();
    idp.person({ login: 'mallory', email: 'grace@acme.example', name: 'Mallory', groups: ['platform'] });
    const impostor = (await signInWithSso('grace@acme.example', 'mallory')).answer;
    expect([impostor.status, impostor.body.message]).toEqual([403, 'grace@acme.example is linked to another identity at your identity provider: ask a team admin']);
    expect(await teamRoleOf('grace@acme.example')).toBe('MEMBER');
    expect(await db().selectFrom('sso_identities').select('subject').where('subject', '=', 'mallory').executeTakeFirst()).toBeUndefined();
  });

  it('shows a member their links and an admin anyone’s in the team, unlinks audited, and the next sign-in links again by address', async () => {
    const ada = await db().selectFrom('users').select('id').where('email', '=', 'ada@acme.example').executeTakeFirstOrThrow();
    const grace = (await signInWithSso('grace@acme.example')).answer.body.data as { token: string; user: { id: string } };
    const identitiesOf = (userId: string, token = admin.token, teamId = admin.teamId) => api('GET', `/sso/identities?teamId=${teamId}&userId=${userId}`, undefined, token);
    const linked = await identitiesOf(ada.id);
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body.data).toEqual({ userId: ada.id, identities: [{ issuer: idp.issuer, subject: 'ada@acme.example', linkedAt: expect.any(String) }] });
    // A member sees their own links only; another team's admin sees no one of this team, nor this team's members through their own.
    expect((await identitiesOf(grace.user.id, grace.token)).body.data.identities).toEqual([{ issuer: idp.issuer, subject: 'grace@acme.example', linkedAt: expect.any(String) }]);
    // The account's own sign-in methods: no password (made by the IdP), the team whose IdP it is linked at.
    expect((await api('GET', '/auth/sign-in-methods', undefined, grace.token)).body.data).toEqual({
      password: false,
      google: false,
      singleSignOn: [{ teamId: admin.teamId, teamName: 'Acme', issuer: idp.issuer, linkedAt: expect.any(String) }],
    });
    expect((await identitiesOf(ada.id, grace.token)).status).toBe(403);
    expect((await api('DELETE', `/sso/identities?teamId=${admin.teamId}&userId=${ada.id}`, undefined, grace.token)).status).toBe(403);
    for (const teamId of [admin.teamId, rival.teamId]) {
      expect((await identitiesOf(ada.id, rival.token, teamId)).status, teamId).toBe(404);
      expect((await api('DELETE', `/sso/identities?teamId=${teamId}&userId=${ada.id}`, undefined, rival.token)).status, teamId).toBe(404);
    }
    const bad = await identitiesOf('not-a-user');
    expect([bad.status, bad.body.field]).toEqual([400, 'userId']);

    const unlinked = await api('DELETE', `/sso/identities?teamId=${admin.teamId}&userId=${ada.id}`);
    expect(unlinked.status, JSON.stringify(unlinked.body)).toBe(200);
    expect((await identitiesOf(ada.id)).body.data.identities).toEqual([]);
    expect((await api('GET', '/auth/sign-in-methods', undefined, grace.token)).body.data.singleSignOn, 'another account’s unlink leaves this one').toHaveLength(1);
    expect((await api('DELETE', `/sso/identities?teamId=${admin.teamId}&userId=${ada.id}`)).status).toBe(404);
    const entry = await db().selectFrom('audit_log').selectAll().where('team_id', '=', admin.teamId).where('action', '=', 'sso.identity_unlinked').executeTakeFirstOrThrow();
    expect([entry.actor_user_id, entry.target_id, entry.before, entry.after]).toEqual([admin.userId, ada.id, { issuer: idp.issuer, subject: 'ada@acme.example', linkedAt: expect.any(String) }, null]);

    // Unlinked, the subject's next sign-in finds no link; with the account's own address (a member
    // of the team, in a verified domain) it links to that account again.
    idp.person({ login: 'ada@acme.example', email: 'ada@acme.example', name: 'Ada Lovelace', groups: ['search-team'] });
    const again = (await signInWithSso('ada@acme.example')).answer;
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.user.id).toBe(ada.id);
    expect((await identitiesOf(ada.id)).body.data.identities).toEqual([{ issuer: idp.issuer, subject: 'ada@acme.example', linkedAt: expect.any(String) }]);
  });

  it("a person's first sign-ins from two tabs at once both succeed, on one account linked once", async () => {
    for (const email of TWO_TABS) {
      // Both tabs go through the IdP first; then their callbacks reach Spendgate together.
      const tabs = [];
      for (const _ of [1, 2]) {
        const started = await api('POST', '/auth/sso/start', { email }, '');
        tabs.push(await idp.signIn(started.body.data.url, email));
      }
      const answers = await Promise.all(tabs.map((params) => api('POST', '/auth/sso/callback', { params }, '')));
      expect(answers.map((answer) => [answer.status, answer.body.data?.user?.email]), JSON.stringify(answers.map((answer) => answer.body))).toEqual([
        [200, email],
        [200, email],
      ]);
      const accounts = await db().selectFrom('users').select('id').where('email', '=', email).execute();
      expect(accounts).toHaveLength(1);
      expect(await db().selectFrom('sso_identities').select('user_id').where('subject', '=', email).execute()).toEqual([{ user_id: accounts[0]!.id }]);
      expect(await teamRoleOf(email)).toBe('MEMBER');
    }
  });

  it('enforced, refuses password sign-in, registration and reset for the domain’s addresses', async () => {
    expect((await api('POST', '/auth/login', { email: 'bob@acme.example', password: 'bob has a long password' }, '')).status).toBe(200);
    expect((await api('PUT', '/sso', { ...settings, clientSecret: undefined, enforced: true })).status).toBe(200);
    for (const [route, body] of [
      ['/auth/login', { email: 'bob@acme.example', password: 'bob has a long password' }],
      ['/auth/login', { email: 'BOB@Acme.example', password: 'wrong' }],
      ['/auth/register', { email: 'carol@acme.example', password: 'a long enough password', name: 'Carol' }],
      ['/auth/send-register-email-otp', { email: 'carol@acme.example' }],
      ['/auth/forgot-password', { email: 'bob@acme.example' }],
      ['/auth/reset-password', { email: 'bob@acme.example', otp: '123456', newPassword: 'another long password' }],
    ] as const) {
      const refused = await api('POST', route, body, '');
      expect(refused.status, `${route} ${JSON.stringify(refused.body)}`).toBe(403);
      expect(refused.body.message).toBe(SSO_REQUIRED_MESSAGE);
    }
    const google = await api('POST', '/auth/google', { token: await fakeGoogle.sign({ sub: 'google-bob', email: 'bob@acme.example', email_verified: true, name: 'Bob' }) }, '');
    expect([google.status, google.body.message]).toEqual([403, SSO_REQUIRED_MESSAGE]);
    expect((await api('POST', '/auth/google', { token: await fakeGoogle.sign({ sub: 'google-gina', email: 'gina@elsewhere.example', email_verified: true, name: 'Gina' }) }, '')).status).toBe(200);
    expect((await api('POST', '/auth/login', { email: 'owner@spendgate-tests.example', password: 'a long enough password' }, '')).status).toBe(200);
    // A team member signs in through the IdP instead.
    expect((await signInWithSso('grace@acme.example')).answer.status).toBe(200);
  });

  it('is removed by an admin, audited, and the domain signs in with passwords again', async () => {
    expect((await api('DELETE', `/sso?teamId=${admin.teamId}`)).status).toBe(200);
    expect((await api('GET', `/sso?teamId=${admin.teamId}`)).body.data).toEqual({ provider: null });
    expect((await api('POST', '/auth/login', { email: 'bob@acme.example', password: 'bob has a long password' }, '')).status).toBe(200);
    expect(await db().selectFrom('audit_log').select('action').where('team_id', '=', admin.teamId).where('action', 'like', 'sso.%').orderBy('id').execute()).toEqual([
      { action: 'sso.configured' },
      { action: 'sso.updated' },
      { action: 'sso.domain_verified' },
      { action: 'sso.updated' },
      { action: 'sso.identity_unlinked' },
      { action: 'sso.updated' },
      { action: 'sso.removed' },
    ]);
  });
});
