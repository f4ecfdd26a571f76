/**
 * The audit log's coverage, one table (issue 25), in each run mode: every route that changes
 * money, keys, roles, budgets, connections, plans or alert channels is called once, and the
 * team's newest entry must be the route's action, by the caller, from the caller's IP and user
 * agent, with the values before and after the change that it names — and no secret the
 * requests carried (a provider key, an SMS auth token, an issued key, a whole phone number, a
 * Stripe card id, a session token, a GPU ingest key, an IdP client secret) anywhere in the row.
 * Cards go through the Stripe fake; single sign-on through a real OpenID Provider on loopback
 * (e2e/fakes/oidc-idp.ts) and a domain proved by the DNS fake. GPU, retention and SSO routes
 * are walked too.
 */
import { listAudit, listOutboxMail, upsertSubscription } from '@spendgate/store';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../fakes/dns-server.ts';
import { type FakeIdp, startFakeIdp } from '../fakes/oidc-idp.ts';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts';
import { type FakeTwilio, startFakeTwilio } from '../fakes/twilio-messages.ts';
import { freePort } from '../support/free-port.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

/** A route called once, the entry it must leave and which of before/after that entry holds. */
interface Row {
  route: string;
  action: string;
  values: { before?: unknown; after?: unknown };
}

describe.each(testModes)('the audit log covers every change (%s)', (mode) => {
  let spendgate: RunningSpendgate;
  let fakeStripe: FakeStripe;
  let stripe: Stripe;
  let twilio: FakeTwilio;
  let idp: FakeIdp;
  let dns: FakeDns;
  const admin = { token: '', userId: '', teamId: '' };
  const payer = { token: '', userId: '', teamId: '' };
  const secrets = new Set<string>();
  const walked: Row[] = [];

  const db = () => spendgate.app.runtime.stores.sql.db;
  const call = async (token: string, method: string, route: string, body?: unknown) => {
    const answer = await callApi(spendgate.url, method, route, { token, ...(body === undefined ? {} : { body }) });
    expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer.body.data;
  };

  /** The token of the newest invitation mailed to `email` (the outbox holds it once the request is answered). */
  async function invitationToken(email: string): Promise<string> {
    const mail = (await listOutboxMail(db(), email)).at(-1);
    const token = mail && /[?&](?:token|invite)=([A-Za-z0-9_-]+)/.exec(mail.text_body)?.[1];
    if (!token) throw new Error(`no invitation mailed to ${email}: ${mail?.text_body}`);
    secrets.add(token);
    return token;
  }

  /** Calls the route as `who` and checks the team's newest entry against the row. */
  async function walk(who: typeof admin, method: string, route: string, body: unknown, expected: Omit<Row, 'route'>) {
    const data = await call(who.token, method, route, body);
    const entry = (await listAudit(db(), who.teamId)).at(-1)!;
    const row = `${method} ${route.replace(/[0-9a-f-]{36}|pm_\w+/g, ':id')}`;
    expect(entry.action, row).toBe(expected.action);
    expect([entry.actor_user_id, entry.actor_ip, entry.actor_user_agent], row).toEqual([who.userId, '127.0.0.1', expect.any(String)]);
    expect({ ...(entry.before && { before: entry.before }), ...(entry.after && { after: entry.after }) }, row).toEqual(expected.values);
    const text = JSON.stringify(entry, (_name, value) => (typeof value === 'bigint' ? value.toString() : value));
    for (const secret of secrets) expect(text, `${row} holds a secret`).not.toContain(secret);
    walked.push({ route: row, ...expected });
    return data;
  }

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    [fakeStripe, twilio, idp, dns] = await Promise.all([
      startFakeStripe(),
      startFakeTwilio(),
      startFakeIdp({ redirectUri: `${publicUrl}/sso/callback`, people: [{ email: 'ada@audited.example', name: 'Ada', groups: ['engineers'] }] }),
      startFakeDns(),
    ]);
    stripe = new Stripe(fakeStripe.apiKey, { ...fakeStripe.sdkOptions, maxNetworkRetries: 0 });
    spendgate = await startSpendgate(mode, `audit-coverage-${mode}`, {
      port,
      env: {
        PUBLIC_URL: publicUrl,
        DNS_SERVERS: dns.server,
        STRIPE_API_URL: fakeStripe.url,
        STRIPE_SECRET_KEY: fakeStripe.apiKey,
        STRIPE_WEBHOOK_SECRET: fakeStripe.webhookSecret,
        TWILIO_API_URL: twilio.url,
      },
    });
    Object.assign(admin, await signUp(spendgate.url, `audit-admin-${mode}@example.com`));
    await upsertSubscription(db(), { userId: admin.userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
    admin.teamId = (await call(admin.token, 'POST', '/team/', { name: 'Audited', description: '' })).id;
    Object.assign(payer, await signUp(spendgate.url, `audit-payer-${mode}@example.com`));
    payer.teamId = (await call(payer.token, 'POST', '/team/', { name: 'Paying', description: '' })).id;
    for (const token of [admin.token, payer.token, twilio.authToken, idp.clientSecret]) secrets.add(token);
  }, 120_000);
  afterAll(async () => {
    await spendgate?.close();
    await Promise.all([fakeStripe?.close(), twilio?.close(), idp?.close(), dns?.close()]);
  });

  it('budgets, prices, connections and alert channels: before and after, no secret', async () => {
    const team = admin.teamId;
    const budget = await walk(admin, 'POST', '/budgets', { scope: 'team', scopeId: team, amount: '100', window: 'month', mode: 'hard' }, {
      action: 'budget.created',
      values: { after: { amountMicros: '100000000', currency: 'GBP', window: 'month', mode: 'hard', alertAt: expect.anything() } },
    });
    const budgetBefore = { amountMicros: '100000000', currency: 'GBP', window: 'month', mode: 'hard', alertAt: expect.anything() };
    const budgetAfter = { ...budgetBefore, amountMicros: '250000000', mode: 'soft' };
    await walk(admin, 'PATCH', `/budgets/${budget.id}?teamId=${team}`, { amount: '250', mode: 'soft' }, { action: 'budget.updated', values: { before: budgetBefore, after: budgetAfter } });
    await walk(admin, 'DELETE', `/budgets/${budget.id}?teamId=${team}`, undefined, { action: 'budget.deleted', values: { before: budgetAfter } });

    const prices = { currency: 'USD', inputPerMTokMicros: '1000000', outputPerMTokMicros: '2000000', cachedReadPerMTokMicros: null, cacheWrite5mPerMTokMicros: null, cacheWrite1hPerMTokMicros: null };
    const override = await walk(admin, 'PUT', '/pricing/overrides', { teamId: team, provider: 'openai', model: 'acme-v1', inputPerMTok: '1', outputPerMTok: '2' }, { action: 'pricing.override.set', values: { after: prices } });
    const raised = { ...prices, outputPerMTokMicros: '3000000' };
    await walk(admin, 'PUT', '/pricing/overrides', { teamId: team, provider: 'openai', model: 'acme-v1', inputPerMTok: '1', outputPerMTok: '3' }, { action: 'pricing.override.set', values: { before: prices, after: raised } });
    await walk(admin, 'DELETE', `/pricing/overrides/${override.id}?teamId=${team}`, undefined, { action: 'pricing.override.deleted', values: { before: raised } });
    await walk(admin, 'PUT', '/pricing/unpriced-models', { teamId: team, allowUnpricedModels: false }, {
      action: 'pricing.unpriced_policy.set',
      values: { before: { allowUnpricedModels: true }, after: { allowUnpricedModels: false } },
    });

    const apiKey = 'sk-audit-coverage-0123456789abcdef';
    const rotated = 'sk-audit-coverage-rotated-9876543210';
    secrets.add(apiKey).add(rotated);
    const { newConnection: connection } = await walk(admin, 'POST', '/provider/connections', { teamId: team, provider: 'openai', name: 'Main', apiKey }, {
      action: 'connection.created',
      values: { after: { name: 'Main', baseUrl: 'https://api.openai.com/v1', options: {}, apiKeyTail: 'cdef' } },
    });
    await walk(admin, 'PUT', `/provider/connections/${connection.id}`, { apiKey: rotated }, {
      action: 'connection.updated',
      values: { before: expect.objectContaining({ apiKeyTail: 'cdef' }), after: expect.objectContaining({ apiKeyTail: '3210' }) },
    });
    await walk(admin, 'PATCH', `/provider/connections/status/${connection.id}`, { statusValue: 'disabled' }, {
      action: 'connection.status_changed',
      values: { before: { status: 'active' }, after: { status: 'disabled' } },
    });
    await walk(admin, 'DELETE', `/provider/connections/${connection.id}`, undefined, { action: 'connection.deleted', values: { before: expect.objectContaining({ name: 'Main', apiKeyTail: '3210' }) } });

    secrets.add('+447700900123').add('+15005550006');
    const sms = await walk(
      admin,
      'POST',
      '/alerts/channels',
      { kind: 'sms', teamId: team, name: 'On call', accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', to: '+447700900123' },
      { action: 'alert-channel.created', values: { after: { kind: 'sms', name: 'On call', accountSid: twilio.accountSid, from: '[redacted]0006', to: '[redacted]0123' } } },
    );
    await walk(admin, 'POST', '/alerts/channels', { kind: 'email', teamId: team, name: 'Finance', addresses: ['fin@example.com'] }, {
      action: 'alert-channel.created',
      values: { after: { kind: 'email', name: 'Finance', addresses: ['fin@example.com'] } },
    });
    await walk(admin, 'DELETE', `/alerts/channels/${sms.id}?teamId=${team}`, undefined, {
      action: 'alert-channel.deleted',
      values: { before: { kind: 'sms', name: 'On call', accountSid: twilio.accountSid, from: '[redacted]0006', to: '[redacted]0123' } },
    });
  });

  it('keys, roles, invitations and members: before and after, no secret', async () => {
    const team = admin.teamId;
    const group = await call(admin.token, 'POST', '/synthetic-group', { name: 'Research', description: '', teamId: team });
    const created = await walk(admin, 'POST', `/synthetic-group/provider-key/create/${group.id}`, { name: 'research-prod', kind: 'optimised' }, {
      action: 'key.created',
      values: { after: { name: 'research-prod', prefix: expect.stringMatching(/^sg_live_/), kind: 'optimised', settings: {} } },
    });
    secrets.add(created.key);
    const keyId = created.providerKey.id;
    const limits = { rateLimit: { requestsPerMinute: 5 } };
    await walk(admin, 'PATCH', `/synthetic-group/provider-key/${keyId}`, { settings: limits }, {
      action: 'key.updated',
      values: { before: { name: 'research-prod', settings: {} }, after: { name: 'research-prod', settings: limits } },
    });

    // A colleague invited to the team accepts (a new account), then is given and moved between roles.
    await call(admin.token, 'POST', '/team/invite', { teamId: team, email: `colleague-${mode}@example.com`, role: 'MEMBER' });
    const token = await invitationToken(`colleague-${mode}@example.com`);
    const accepted = await callApi(spendgate.url, 'POST', '/team/accept', { body: { token, password: 'a long enough password', name: 'Colleague' } });
    expect(accepted.status).toBe(200);
    const colleague = accepted.body.data.user.id as string;
    const joined = (await listAudit(db(), team)).at(-1)!;
    expect([joined.action, joined.actor_user_id, joined.actor_ip, joined.after]).toEqual(['member.joined', colleague, '127.0.0.1', { role: 'MEMBER' }]);
    walked.push({ route: 'POST /team/accept', action: 'member.joined', values: { after: { role: 'MEMBER' } } });

    await walk(admin, 'PATCH', '/team/role', { teamId: team, userId: colleague, role: 'ADMIN' }, { action: 'member.role_changed', values: { before: { role: 'MEMBER' }, after: { role: 'ADMIN' } } });
    await walk(admin, 'POST', `/synthetic-group/member/${group.id}`, { users: [{ userId: colleague, role: 'OBSERVER' }] }, { action: 'group.member_added', values: { after: { role: 'OBSERVER' } } });
    await walk(admin, 'PATCH', `/synthetic-group/member/${group.id}/${colleague}`, { role: 'ADMIN' }, {
      action: 'group.member_role_changed',
      values: { before: { role: 'OBSERVER' }, after: { role: 'ADMIN' } },
    });
    await walk(admin, 'DELETE', `/synthetic-group/member/${group.id}/${colleague}`, undefined, { action: 'group.member_removed', values: { before: { role: 'ADMIN' } } });

    // Invited to the group by e-mail, the colleague accepts signed in.
    await call(admin.token, 'POST', `/synthetic-group/${group.id}/invite`, { email: `colleague-${mode}@example.com`, role: 'OBSERVER' });
    const groupToken = await invitationToken(`colleague-${mode}@example.com`);
    const colleagueSession = { token: accepted.body.data.token as string, userId: colleague, teamId: team };
    secrets.add(colleagueSession.token);
    await walk(colleagueSession, 'POST', '/synthetic-group/accept-invite', { token: groupToken }, { action: 'invitation.accepted', values: { after: { role: 'OBSERVER' } } });

    await walk(admin, 'DELETE', '/team/member', { teamId: team, userId: colleague }, { action: 'member.removed', values: { before: { role: 'ADMIN' } } });
    await walk(admin, 'DELETE', `/synthetic-group/provider-key/${keyId}`, undefined, {
      action: 'key.revoked',
      values: { before: { name: 'research-prod', settings: limits, revoked: false }, after: { revoked: true } },
    });
  });

  it('GPU settings, prices, ingest keys and exporters: before and after, no secret', async () => {
    const team = admin.teamId;
    const rules = await call(admin.token, 'GET', `/gpu/settings?teamId=${team}`);
    await walk(admin, 'PUT', '/gpu/settings', { teamId: team, idleBelowPct: 7, idleAfterMinutes: 45 }, {
      action: 'gpu.idle-rules.updated',
      values: { before: { idleBelowPct: rules.idleBelowPct, idleAfterMinutes: rules.idleAfterMinutes }, after: { idleBelowPct: 7, idleAfterMinutes: 45 } },
    });
    const h100 = 'NVIDIA H100 80GB HBM3';
    await walk(admin, 'PUT', '/gpu/prices', { teamId: team, prices: [{ model: h100, perHour: '2.5' }] }, {
      action: 'gpu.prices.replaced',
      values: { before: { prices: [] }, after: { prices: [{ model: h100, perHourMicros: '2500000' }] } },
    });
    await walk(admin, 'PUT', '/gpu/prices', { teamId: team, prices: [{ model: h100, perHour: '3' }] }, {
      action: 'gpu.prices.replaced',
      values: { before: { prices: [{ model: h100, perHourMicros: '2500000' }] }, after: { prices: [{ model: h100, perHourMicros: '3000000' }] } },
    });
    const ingestKey = await walk(admin, 'POST', '/gpu/ingest-keys', { teamId: team, name: 'agents' }, {
      action: 'gpu.ingest-key.issued',
      values: { after: { name: 'agents', prefix: expect.stringMatching(/^sg_gpu_/) } },
    });
    secrets.add(ingestKey.key);
    await walk(admin, 'DELETE', `/gpu/ingest-keys/${ingestKey.id}?teamId=${team}`, undefined, {
      action: 'gpu.ingest-key.revoked',
      values: { before: { name: 'agents', prefix: ingestKey.prefix, revoked: false }, after: { revoked: true } },
    });
    // A cluster is made by its first exporter; nothing listens there, which only its scrape notices.
    const exporter = { cluster: 'inference', url: 'http://127.0.0.1:9/metrics' };
    const added = await walk(admin, 'POST', '/gpu/exporters', { teamId: team, ...exporter }, { action: 'gpu.exporter.added', values: { after: exporter } });
    await walk(admin, 'DELETE', `/gpu/exporters/${added.id}?teamId=${team}`, undefined, { action: 'gpu.exporter.deleted', values: { before: exporter } });
  });

  it('retention settings: before and after', async () => {
    const team = admin.teamId;
    await walk(admin, 'PUT', `/audit/retention/${team}`, { auditRetentionDays: 400 }, {
      action: 'audit.retention_updated',
      values: { before: { auditRetentionDays: 365 }, after: { auditRetentionDays: 400 } },
    });
    const retention = await call(admin.token, 'GET', `/teams/${team}/retention`);
    const kept = { usageEventDays: retention.usageEvents.minDays, gpuSampleHours: retention.gpuSamples.minHours };
    await walk(admin, 'PUT', `/teams/${team}/retention`, kept, {
      action: 'team.retention.updated',
      values: { before: { usageEventDays: retention.usageEvents.days, gpuSampleHours: retention.gpuSamples.hours }, after: kept },
    });
    const captureDays = retention.promptCaptures.minDays;
    await walk(admin, 'PUT', `/teams/${team}/retention`, { promptCaptureDays: captureDays }, {
      action: 'prompt_capture.updated',
      values: { before: { enabled: false, retentionDays: null, redactionPatterns: 0 }, after: { enabled: false, retentionDays: captureDays, redactionPatterns: 0 } },
    });
    await walk(admin, 'PUT', `/capture/teams/${team}`, { enabled: true, retentionDays: captureDays, redactionPatterns: ['ACME-[0-9]{6}'] }, {
      action: 'prompt_capture.updated',
      values: { before: { enabled: false, retentionDays: captureDays, redactionPatterns: 0 }, after: { enabled: true, retentionDays: captureDays, redactionPatterns: 1 } },
    });
  });

  it('single sign-on: the IdP, its domain, a linked identity; the client secret never', async () => {
    const team = admin.teamId;
    const settings = {
      teamId: team,
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      domains: ['audited.example'],
      enforced: false,
      groupsClaim: 'groups',
      defaultTeamRole: 'MEMBER',
      mappings: [],
    };
    const configured = { issuer: idp.issuer, clientId: idp.clientId, domains: ['audited.example'], enforced: false, groupsClaim: 'groups', defaultTeamRole: 'MEMBER', mappings: [] };
    const saved = await walk(admin, 'PUT', '/sso', settings, { action: 'sso.configured', values: { after: configured } });
    const mapped = [{ idpGroup: 'engineers', teamRole: 'MEMBER', groupId: null, groupRole: null }];
    await walk(admin, 'PUT', '/sso', { ...settings, clientSecret: undefined, mappings: mapped }, { action: 'sso.updated', values: { before: configured, after: { ...configured, mappings: mapped } } });

    const { name, value } = saved.provider.domainVerification[0].record;
    dns.set(name, { txt: [value] });
    await walk(admin, 'POST', '/sso/verify-domain', { teamId: team, domain: 'audited.example' }, {
      action: 'sso.domain_verified',
      values: { before: { domain: 'audited.example', verifiedAt: null }, after: { domain: 'audited.example', verifiedAt: expect.any(String) } },
    });

    // Ada signs in through the IdP (an account made and linked), then an admin unlinks it.
    const started = await callApi(spendgate.url, 'POST', '/auth/sso/start', { body: { email: 'ada@audited.example' } });
    const params = await idp.signIn(started.body.data.url, 'ada@audited.example');
    const signedIn = await callApi(spendgate.url, 'POST', '/auth/sso/callback', { body: { params } });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    secrets.add(signedIn.body.data.token);
    await walk(admin, 'DELETE', `/sso/identities?teamId=${team}&userId=${signedIn.body.data.user.id}`, undefined, {
      action: 'sso.identity_unlinked',
      values: { before: { issuer: idp.issuer, subject: 'ada@audited.example', linkedAt: expect.any(String) } },
    });
    await walk(admin, 'DELETE', `/sso?teamId=${team}`, undefined, {
      action: 'sso.removed',
      values: { before: { issuer: idp.issuer, clientId: idp.clientId, domains: ['audited.example'], enforced: false } },
    });
  });

  it('cards and plans: brand and last four digits only, the plan before and after', async () => {
    const card = async (testCard: string) => {
      const intent = await call(payer.token, 'POST', '/subscription/create-setup-intent');
      const id = String((await stripe.setupIntents.confirm(intent.setupIntentId, { payment_method: testCard })).payment_method);
      secrets.add(id);
      return id;
    };
    const visa = await card('pm_card_visa');
    await walk(payer, 'POST', '/subscription/save-payment-method', { paymentMethodId: visa }, {
      action: 'billing.card_saved',
      values: { before: { defaultCard: null }, after: { card: 'visa 4242', defaultCard: 'visa 4242' } },
    });
    const mastercard = await card('pm_card_mastercard');
    await walk(payer, 'POST', '/subscription/save-payment-method', { paymentMethodId: mastercard }, {
      action: 'billing.card_saved',
      values: { before: { defaultCard: 'visa 4242' }, after: { card: 'mastercard 4444', defaultCard: 'visa 4242' } },
    });
    await walk(payer, 'POST', '/subscription/payment-method', { paymentMethodId: mastercard }, {
      action: 'billing.default_card',
      values: { before: { defaultCard: 'visa 4242' }, after: { defaultCard: 'mastercard 4444' } },
    });
    await walk(payer, 'DELETE', `/subscription/payment-method/${visa}`, undefined, {
      action: 'billing.card_removed',
      values: { before: { card: 'visa 4242', defaultCard: 'mastercard 4444' }, after: { defaultCard: 'mastercard 4444' } },
    });
    const plans = Object.fromEntries((await call(payer.token, 'GET', '/subscription/plans')).map((plan: { slug: string; id: string }) => [plan.slug, plan.id]));
    await walk(payer, 'POST', '/subscription/create', { planId: plans.growth }, {
      action: 'billing.subscribed',
      values: { before: { planSlug: 'free-trial', status: 'trialing' }, after: { planSlug: 'growth' } },
    });
    await walk(payer, 'POST', '/subscription/change-plan', { planId: plans.developers }, {
      action: 'billing.plan_changed',
      values: { before: { planSlug: 'growth' }, after: { planSlug: 'developers' } },
    });
    await walk(payer, 'POST', '/subscription/cancel', { immediate: false }, {
      action: 'billing.cancelled',
      values: { before: { status: 'trialing', cancelAtPeriodEnd: false }, after: { status: 'trialing', cancelAtPeriodEnd: true } },
    });
    // The table the report gives: every route walked, each with the values it names.
    expect(walked).toHaveLength(47);
    console.info(walked.map((row) => `${row.route} → ${row.action} → ${['before', 'after'].filter((side) => side in row.values).join(' and ')}`).join('\n'));
  });
});
