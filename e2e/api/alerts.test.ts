// Spend alerts through the API, in both run modes: channels by plan (e-mail on every plan;
// Slack, Teams, SMS on Enterprise), secrets sealed and never answered, webhook URLs checked
// by the outbound guard, bad input naming the field, other teams' channels hidden (404);
// a test message and a budget threshold delivered by the worker to a real SMTP server and
// to fakes of Slack, Teams and Twilio that check each wire format; every attempt recorded,
// a delivery sent once however often its job runs. A team admin's spend digest: chosen,
// mailed through SMTP once due, stopped.
import { randomUUID } from 'node:crypto';
import { lastDigestPeriod } from '@spendgate/core';
import { insertUsageEvents } from '@spendgate/store';
import { usageEvent as usageEventAt } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackWebhook, startFakeSlackWebhook } from '../fakes/slack-webhook.ts';
import { type FakeTeamsWebhook, startFakeTeamsWebhook } from '../fakes/teams-webhook.ts';
import { type FakeTwilio, startFakeTwilio } from '../fakes/twilio-messages.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { usageEvent } from '../support/usage-events.ts';
import { type MailSink, startMailSink } from './support.ts';

describe.each(testModes)('spend alerts (%s)', (mode) => {
  let spendgate: RunningSpendgate;
  let mail: MailSink;
  let slack: FakeSlackWebhook;
  let teams: FakeTeamsWebhook;
  let twilio: FakeTwilio;
  const admin = { token: '', userId: '' };
  const outsider = { token: '', teamId: '' };
  const ids = { team: '', group: '', key: '', email: '', slack: '', teams: '', sms: '' };

  const api = (method: string, route: string, body?: unknown, token = admin.token) => callApi(spendgate.url, method, route, { token, body });
  const history = async () => (await api('GET', `/alerts?teamId=${ids.team}`)).body.data as { kind: string; thresholdPercent: number | null; deliveries: { channelKind: string; status: string; idempotencyKey: string; attempts: { outcome: string; statusCode: number | null }[] }[] }[];

  beforeAll(async () => {
    [mail, slack, teams, twilio] = await Promise.all([startMailSink(), startFakeSlackWebhook(), startFakeTeamsWebhook(), startFakeTwilio()]);
    spendgate = await startSpendgate(mode, `alerts-${mode}`, { env: { SMTP_URL: mail.url, TWILIO_API_URL: twilio.url } });
    Object.assign(admin, await signUp(spendgate.url, `alerts-admin-${mode}@example.com`));
    ids.team = (await api('POST', '/team/', { name: 'Alerting', description: '' })).body.data.id;
    ids.group = (await api('POST', '/synthetic-group', { name: 'Research', description: '', teamId: ids.team })).body.data.id;
    ids.key = randomUUID();
    await spendgate.app.runtime.stores.sql.db
      .insertInto('issued_keys')
      .values({ id: ids.key, team_id: ids.team, group_id: ids.group, connection_id: null, kind: 'optimised', name: 'research-prod', key_hash: `hash-${ids.key}`, key_prefix: 'sg_live_abcde', created_by: admin.userId, settings: '{}' })
      .execute();
    const other = await signUp(spendgate.url, `alerts-outsider-${mode}@example.com`);
    outsider.token = other.token;
    outsider.teamId = (await callApi(spendgate.url, 'POST', '/team/', { token: other.token, body: { name: 'Elsewhere', description: '' } })).body.data.id;
  });
  afterAll(async () => {
    await spendgate?.close();
    await Promise.all([mail?.close(), slack?.close(), teams?.close(), twilio?.close()]);
  });

  it('adds e-mail on the free trial and refuses Slack, Teams and SMS (403) until Enterprise', async () => {
    const email = await api('POST', '/alerts/channels', { kind: 'email', teamId: ids.team, name: 'Finance', addresses: ['fin@example.com'] });
    expect(email.status, JSON.stringify(email.body)).toBe(201);
    expect(email.body.data).toMatchObject({ kind: 'email', name: 'Finance', target: 'fin@example.com' });
    ids.email = email.body.data.id;
    const refused = await api('POST', '/alerts/channels', { kind: 'slack', teamId: ids.team, name: 'Ops', webhookUrl: slack.webhookUrl });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Slack alerts are part of the Enterprise plan; the Free Trial plan sends alerts by e-mail');

    await spendgate.app.runtime.stores.sql.db.updateTable('subscriptions').set({ plan_slug: 'enterprise', status: 'active' }).where('user_id', '=', admin.userId).execute();
    const created = {
      slack: await api('POST', '/alerts/channels', { kind: 'slack', teamId: ids.team, name: 'Ops', webhookUrl: slack.webhookUrl }),
      teams: await api('POST', '/alerts/channels', { kind: 'teams', teamId: ids.team, name: 'Finance channel', webhookUrl: teams.webhookUrl }),
      sms: await api('POST', '/alerts/channels', { kind: 'sms', teamId: ids.team, name: 'On call', accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', to: '+447700900123' }),
    };
    for (const [kind, answer] of Object.entries(created)) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      ids[kind as 'slack' | 'teams' | 'sms'] = answer.body.data.id;
    }
    expect(created.slack.body.data.target).toBe(`webhook at ${new URL(slack.webhookUrl).host}`);
    expect(created.sms.body.data.target).toBe('+447700900123 from +15005550006');

    // No answer and no stored column carries a webhook's path or the auth token.
    const listed = await api('GET', `/alerts/channels?teamId=${ids.team}`);
    expect(listed.body.data.map((channel: { kind: string }) => channel.kind)).toEqual(['email', 'slack', 'teams', 'sms']);
    const rows = JSON.stringify(await spendgate.app.runtime.stores.sql.db.selectFrom('alert_channels').select(['settings', 'secret_ciphertext']).where('team_id', '=', ids.team).execute(), (_, value) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value));
    for (const secret of [new URL(slack.webhookUrl).pathname, 'fakeSignature0001', twilio.authToken]) {
      expect(JSON.stringify(listed.body)).not.toContain(secret);
      expect(rows).not.toContain(secret);
    }
  });

  it('answers bad input with 400 naming the field, private webhooks included', async () => {
    const cases: [unknown, string][] = [
      [{ kind: 'pager', teamId: ids.team, name: 'x' }, 'kind'],
      [{ kind: 'email', teamId: ids.team, name: 'x', addresses: ['not an address'] }, 'addresses.0'],
      [{ kind: 'email', teamId: ids.team, name: 'x', addresses: [] }, 'addresses'],
      [{ kind: 'email', teamId: 'nope', name: 'x', addresses: ['a@example.com'] }, 'teamId'],
      [{ kind: 'email', teamId: ids.team, name: '  ', addresses: ['a@example.com'] }, 'name'],
      [{ kind: 'slack', teamId: ids.team, name: 'x', webhookUrl: 'ftp://hooks.example/x' }, 'webhookUrl'],
      [{ kind: 'slack', teamId: ids.team, name: 'x', webhookUrl: 'http://10.1.2.3/hook' }, 'webhookUrl'],
      [{ kind: 'teams', teamId: ids.team, name: 'x', webhookUrl: 'http://localhost:9/hook' }, 'webhookUrl'],
      [{ kind: 'sms', teamId: ids.team, name: 'x', accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', to: '07700 900123' }, 'to'],
      [{ kind: 'sms', teamId: ids.team, name: 'x', accountSid: 'nope', authToken: twilio.authToken, from: '+15005550006', to: '+447700900123' }, 'accountSid'],
    ];
    for (const [body, field] of cases) {
      const answer = await api('POST', '/alerts/channels', body);
      expect([answer.status, answer.body.field], JSON.stringify(body)).toEqual([400, field]);
    }
    expect((await api('GET', `/alerts?teamId=${ids.team}&limit=0`)).body.field).toBe('limit');
    expect((await api('POST', `/alerts/channels/not-an-id/test?teamId=${ids.team}`)).body.field).toBe('id');
  });

  it("hides a team's channels and alerts from another team (404)", async () => {
    expect((await api('GET', `/alerts/channels?teamId=${ids.team}`, undefined, outsider.token)).status).toBe(404);
    expect((await api('GET', `/alerts?teamId=${ids.team}`, undefined, outsider.token)).status).toBe(404);
    expect((await api('POST', '/alerts/channels', { kind: 'email', teamId: ids.team, name: 'x', addresses: ['a@example.com'] }, outsider.token)).status).toBe(404);
    // Through the outsider's own team, our channel's id is no channel of theirs.
    expect((await api('POST', `/alerts/channels/${ids.slack}/test?teamId=${outsider.teamId}`, undefined, outsider.token)).status).toBe(404);
    expect((await api('DELETE', `/alerts/channels/${ids.slack}?teamId=${outsider.teamId}`, undefined, outsider.token)).status).toBe(404);
    expect((await api('GET', `/alerts/channels?teamId=${ids.team}`)).body.data).toHaveLength(4);
  });

  it('sends a test to each channel in its wire format, once however often its job runs', async () => {
    const started: Record<string, string> = {};
    for (const kind of ['email', 'slack', 'teams', 'sms'] as const) {
      const answer = await api('POST', `/alerts/channels/${ids[kind]}/test?teamId=${ids.team}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      started[kind] = answer.body.data.deliveryId;
    }
    await expect.poll(async () => (await history()).flatMap((alert) => alert.deliveries.map((delivery) => delivery.status)), { timeout: 20_000 }).toEqual(['sent', 'sent', 'sent', 'sent']);

    const received = await mail.next('fin@example.com');
    expect(received.subject).toBe('Spendgate test alert');
    expect(received.text).toContain('This is a test alert from Spendgate to the channel "Finance"');
    expect(slack.posted).toHaveLength(1);
    expect(slack.posted[0]!.blocks![0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Spendgate test alert', emoji: false } });
    expect(teams.cards).toHaveLength(1);
    expect(teams.cards[0]!.body[1]!.text).toContain('to the channel "Finance channel"');
    expect(twilio.messages).toEqual([{ to: '+447700900123', from: '+15005550006', body: expect.stringContaining('Spendgate: This is a test alert') }]);
    expect(twilio.requests[0]!.headers['user-agent']).toMatch(/^twilio-node\//);

    // The same deliveries handed to their job again (a redelivered job): nothing is sent twice.
    for (const deliveryId of Object.values(started)) await spendgate.app.runtime.stores.queue.enqueue('alert-deliver', { deliveryId }, { jobId: `again-${deliveryId}` });
    await spendgate.app.runtime.stores.queue.drain();
    expect([mail.countTo('fin@example.com'), slack.posted.length, teams.cards.length, twilio.messages.length]).toEqual([1, 1, 1, 1]);
    const attempts = (await history()).flatMap((alert) => alert.deliveries.map((delivery) => delivery.attempts.map((attempt) => attempt.outcome)));
    expect(attempts).toEqual([['sent'], ['sent'], ['sent'], ['sent']]);
  });

  it('records a failed attempt: a 5xx is retried, a refusal fails at once', async () => {
    slack.controlHeaders['x-fake-status'] = '503';
    teams.controlHeaders['x-fake-status'] = '401';
    await api('POST', `/alerts/channels/${ids.slack}/test?teamId=${ids.team}`);
    await api('POST', `/alerts/channels/${ids.teams}/test?teamId=${ids.team}`);
    const newest = async () => (await history()).slice(0, 2).flatMap((alert) => alert.deliveries.map((delivery) => [delivery.channelKind, delivery.status, delivery.attempts.map((attempt) => [attempt.outcome, attempt.statusCode])]));
    await expect.poll(newest, { timeout: 20_000 }).toEqual(
      expect.arrayContaining([
        ['slack', 'retrying', [['failed', 503]]],
        ['teams', 'failed', [['failed', 401]]],
      ]),
    );
    delete slack.controlHeaders['x-fake-status'];
    delete teams.controlHeaders['x-fake-status'];
  });

  it("fires a budget's threshold once to every channel, from the usage the meter recorded", async () => {
    const budget = await api('POST', '/budgets', { scope: 'group', scopeId: ids.group, amount: '0.01', window: 'month', mode: 'soft', alertAt: [50, 200] });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
    await insertUsageEvents(spendgate.app.runtime.stores.sql.db, [usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.key }, 0, { budget_spend_micros: 6_000n })]);
    await Promise.all([1, 2, 3].map((run) => spendgate.app.runtime.stores.queue.enqueue('alert-check', {}, { jobId: `check-${run}` })));
    const threshold = async () => (await history()).filter((alert) => alert.kind === 'threshold');
    await expect.poll(async () => (await threshold()).flatMap((alert) => alert.deliveries.map((delivery) => `${delivery.channelKind} ${delivery.status}`)).sort(), { timeout: 20_000 }).toEqual([
      'email sent',
      'slack sent',
      'sms sent',
      'teams sent',
    ]);
    expect((await threshold()).map((alert) => alert.thresholdPercent)).toEqual([50]);
    expect(slack.posted.filter((message) => message.text?.startsWith('Research')).map((message) => message.text)).toEqual([
      'Research has spent 60% of its £0.01 monthly budget: Budget alert: the group Research has spent £0.006 of its £0.01 monthly ' +
        `(window from ${new Date().toISOString().slice(0, 7)}-01) budget (60%), reaching the 50% alert.`,
    ]);
  });

  it('lets a team admin choose a weekly or monthly spend digest, and mails it through SMTP once it is due', async () => {
    const digestTeam = (await api('POST', '/team/', { name: 'Digest team', description: '' })).body.data.id as string;
    const groupId = (await api('POST', '/synthetic-group', { name: 'Search', description: '', teamId: digestTeam })).body.data.id as string;
    // A zone where last week's digest is already due (not Monday before 08:00 there).
    const timeZone = ['UTC', 'Pacific/Kiritimati'].find((zone) => new Date() >= lastDigestPeriod('weekly', new Date(), zone).dueAt)!;
    const { db } = spendgate.app.runtime.stores.sql;
    await db.updateTable('teams').set({ time_zone: timeZone }).where('id', '=', digestTeam).execute();
    const keyId = randomUUID();
    await db
      .insertInto('issued_keys')
      .values({ id: keyId, team_id: digestTeam, group_id: groupId, connection_id: null, kind: 'optimised', name: 'search-prod', key_hash: `hash-${keyId}`, key_prefix: 'sg_live_fghij', created_by: admin.userId, settings: '{}' })
      .execute();
    const lastWeek = lastDigestPeriod('weekly', new Date(), timeZone);
    await insertUsageEvents(db, [usageEventAt({ teamId: digestTeam, groupId, keyId }, new Date(lastWeek.start.getTime() + 3_600_000), { budget_spend_micros: 1_500_000n })]);

    expect((await api('GET', `/alerts/spend-digest?teamId=${digestTeam}`)).body.data).toEqual({ teamId: digestTeam, frequency: null, timeZone, next: null });
    const saved = await api('PUT', '/alerts/spend-digest', { teamId: digestTeam, frequency: 'weekly' });
    expect([saved.status, saved.body.message], JSON.stringify(saved.body)).toEqual([200, 'Spend digest saved']);
    expect(saved.body.data).toMatchObject({ frequency: 'weekly', next: { dueAt: expect.any(String) } });
    expect(Date.parse(saved.body.data.next.dueAt)).toBeGreaterThan(Date.now());

    const address = `alerts-admin-${mode}@example.com`;
    const seen = mail.countTo(address);
    await Promise.all([1, 2].map((run) => spendgate.app.runtime.stores.queue.enqueue('spend-digest', {}, { jobId: `digest-${run}` })));
    const digest = await mail.next(address, seen);
    expect(digest.subject).toMatch(/^Digest team: £1\.50 on AI \d{1,2} [A-Z][a-z]{2} \d{4} – \d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(digest.text).toContain('Spend: £1.50, nothing the week before.');
    expect(digest.text).toContain(`start=${lastWeek.firstDay}&end=${lastWeek.lastDay}`);

    // A sample on demand: the same figures, marked as a sample; three an hour.
    const preview = await api('POST', '/alerts/spend-digest/preview', { teamId: digestTeam });
    expect([preview.status, preview.body.message], JSON.stringify(preview.body)).toEqual([202, 'A sample digest is on its way']);
    expect(preview.body.data).toEqual({ to: address, frequency: 'weekly', firstDay: lastWeek.firstDay, lastDay: lastWeek.lastDay });
    const sample = await mail.next(address, seen + 1);
    expect(sample.subject).toBe(`Sample: ${digest.subject}`);
    expect(sample.text).toContain('Spend: £1.50, nothing the week before.');
    for (let more = 0; more < 2; more++) expect((await api('POST', '/alerts/spend-digest/preview', { teamId: digestTeam })).status).toBe(202);
    expect((await api('POST', '/alerts/spend-digest/preview', { teamId: digestTeam })).status).toBe(429);
    expect((await api('POST', '/alerts/spend-digest/preview', { teamId: digestTeam }, outsider.token)).status).toBe(404);

    // Bad input names the field; a member of no such team, another team's admin, is refused.
    for (const body of [{ teamId: digestTeam, frequency: 'daily' }, { teamId: digestTeam }, { teamId: 'nope', frequency: 'weekly' }]) {
      const refused = await api('PUT', '/alerts/spend-digest', body);
      expect([refused.status, refused.body.field], JSON.stringify(body)).toEqual([400, body.teamId === 'nope' ? 'teamId' : 'frequency']);
    }
    expect((await api('GET', `/alerts/spend-digest?teamId=${digestTeam}`, undefined, outsider.token)).status).toBe(404);
    const stopped = await api('PUT', '/alerts/spend-digest', { teamId: digestTeam, frequency: null });
    expect([stopped.body.message, stopped.body.data.frequency, stopped.body.data.next]).toEqual(['Spend digest stopped', null, null]);
  });

  it('deletes a channel: it is gone from the list, its past deliveries stay', async () => {
    expect((await api('DELETE', `/alerts/channels/${ids.sms}?teamId=${ids.team}`)).status).toBe(200);
    expect((await api('DELETE', `/alerts/channels/${ids.sms}?teamId=${ids.team}`)).status).toBe(404);
    expect((await api('GET', `/alerts/channels?teamId=${ids.team}`)).body.data.map((channel: { kind: string }) => channel.kind)).toEqual(['email', 'slack', 'teams']);
    expect((await history()).flatMap((alert) => alert.deliveries).filter((delivery) => delivery.channelKind === 'sms')).toHaveLength(2);
  });
});
