/**
 * The AI advisor through the API, in every run mode: generate finds a cheaper model and an
 * idle key in a team's own usage, with the amounts worked by hand, and repeated requests and
 * output limits far above the answers in requests sent through the data plane (whose usage
 * events carry the body's fingerprint, keyed per team, and the limit asked); each finding is charged
 * the plan's price once (again on a second run, and under concurrent runs: never twice),
 * and never on a demo team, whose run and list say its tips are free (nor worded through the operator's upstream);
 * applying revokes the idle key, or merges a model override (another model, or the same
 * model through a cheaper connection) or an output cap into the key's settings — audited,
 * read back from the key — and, a few days on, measures the realised saving; the team's
 * wording setting rewords the tips through its connection or the operator's upstream (fakes),
 * each call recorded and priced as the team's usage; and the contract's edges — roles, other
 * teams (404), bad input naming the field.
 */
import { createHash, createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { decimalToMicros } from '@spendgate/core';
import { insertUsageEvents } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { signUp } from '../support/sign-up.ts';
import { issueByokKey, signUpTeam } from '../data-plane/tenant.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { usageEvent } from '../support/usage-events.ts';

const DAY_MS = 86_400_000;

for (const mode of testModes) {
  describe(`AI advisor (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let operator: FakeOpenAI;
    const admin = { token: '', userId: '' };
    const member = { token: '', userId: '' };
    const stranger = { token: '', userId: '' };
    const ids = { team: '', group: '', key: '', idleKey: '', otherTeam: '', otherGroup: '' };
    const requestIds: string[] = [];
    const db = () => spendgate.app.runtime.stores.sql.db;
    const generate = (body: unknown, token = admin.token) => callApi(spendgate.url, 'POST', '/usage/ai-advisor/generate', { token, body });
    const list = (teamId: string, token = admin.token) => callApi(spendgate.url, 'GET', `/usage/ai-advisor?teamId=${teamId}`, { token });
    const apply = (id: string, token = admin.token) => callApi(spendgate.url, 'POST', `/usage/ai-advisor/${id}/apply`, { token });

    /** A team with a group, a busy BYOK key on gpt-4o and a BYOK key made 40 days ago and never used, both on its OpenAI connection. */
    async function teamWithUsage(owner: { token: string; userId: string }, name: string, events: number) {
      const team = (await callApi(spendgate.url, 'POST', '/team/', { token: owner.token, body: { name, description: '' } })).body.data.id as string;
      const group = (await callApi(spendgate.url, 'POST', '/synthetic-group', { token: owner.token, body: { name: `${name} group`, description: '', teamId: team } })).body.data.id as string;
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: owner.token,
        body: { teamId: team, provider: 'openai', name: 'OpenAI', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      const key = randomUUID();
      const idleKey = randomUUID();
      const keyRow = (id: string, keyName: string, createdAt: Date, settings = '{}') => ({
        id,
        team_id: team,
        group_id: group,
        connection_id: connection.body.data.newConnection.id as string,
        kind: 'byok' as const,
        name: keyName,
        key_hash: `hash-${id}`,
        key_prefix: `sg_live_${id.slice(0, 5)}`,
        created_by: owner.userId,
        settings,
        created_at: createdAt,
      });
      await db().insertInto('issued_keys').values([keyRow(key, 'backend', new Date(Date.now() - 10 * DAY_MS), '{"rateLimit":{"requestsPerMinute":600}}'), keyRow(idleKey, 'forgotten', new Date(Date.now() - 40 * DAY_MS))]).execute();
      // Each request 100,000 prompt and 10,000 output tokens of gpt-4o on a BYOK key: $0.35 → £0.2625 counted.
      const made = Array.from({ length: events }, (_, index) =>
        usageEvent({ teamId: team, groupId: group, keyId: key }, 3 + (index % 4), {
          key_kind: 'byok',
          input_tokens: 100_000n,
          output_tokens: 10_000n,
          cost_micros: 350_000n,
          billed_micros: 0n,
          budget_spend_micros: 262_500n,
        }),
      );
      await insertUsageEvents(db(), made);
      return { team, group, key, idleKey, events: made };
    }

    beforeAll(async () => {
      [fake, operator] = await Promise.all([startFakeOpenAI(), startFakeOpenAI({ apiKey: 'sk-operator' })]);
      // The operator's upstream for optimised keys, which the advisor's wording may go through too.
      spendgate = await startSpendgate(mode, 'advisor', { env: { OPTIMISED_UPSTREAMS: JSON.stringify({ openai: { apiKey: 'sk-operator', baseUrl: operator.url } }) } });
      Object.assign(admin, await signUp(spendgate.url, `advisor-${mode}@example.com`));
      Object.assign(member, await signUp(spendgate.url, `advisor-member-${mode}@example.com`));
      Object.assign(stranger, await signUp(spendgate.url, `advisor-stranger-${mode}@example.com`));
      const made = await teamWithUsage(admin, 'Advised', 10);
      Object.assign(ids, { team: made.team, group: made.group, key: made.key, idleKey: made.idleKey });
      requestIds.push(...[...made.events].sort((a, b) => (a.occurred_at < b.occurred_at ? 1 : a.occurred_at > b.occurred_at ? -1 : a.request_id < b.request_id ? 1 : -1)).map((event) => event.request_id));
      await db().insertInto('team_members').values({ team_id: ids.team, user_id: member.userId, role: 'MEMBER' }).execute();
      const other = await teamWithUsage(stranger, 'Elsewhere', 1);
      Object.assign(ids, { otherTeam: other.team, otherGroup: other.group });
    }, 180_000);
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
      await operator?.close();
    });

    it('finds a cheaper model and an idle key, priced by hand, and charges each finding once', async () => {
      const first = await generate({ teamId: ids.team, data: [] });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const run = first.body.data;
      // The free trial looks back 7 days: the window is the last 7 days, £0.03 an insight.
      expect(run).toMatchObject({ teamId: ids.team, demo: false, found: 2, created: 2, charged: '0.060000', currency: 'GBP' });
      const [model, idle] = run.insights;
      // 1M prompt + 0.1M output tokens of gpt-4o: $3.50 → £2.625; gpt-5-mini (same tier, accuracy 84 ≥ 80):
      // $0.25 + $0.20 = $0.45 → £0.3375. £2.2875 over 7 days × 30/7 = £9.803571 a month (half-up).
      expect(model).toMatchObject({
        kind: 'cheaper-model',
        title: 'Use gpt-5-mini instead of gpt-4o',
        currentCost: '2.625000',
        counterfactualCost: '0.337500',
        estimatedMonthlySaving: '9.803571',
        confidence: 'low',
        price: '0.030000',
        realisedMonthlySaving: null,
        appliedAt: null,
        subject: { keyId: ids.key, provider: 'openai', model: 'gpt-4o', connectionId: null },
        evidence: { requests: 10, exampleRequestIds: requestIds.slice(0, 3) },
        change: {
          action: 'key-setting',
          keyId: ids.key,
          settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-5-mini' }] },
          description: 'On key backend, send gpt-5-mini when gpt-4o is asked for',
        },
      });
      expect(idle).toMatchObject({ kind: 'idle-key', estimatedMonthlySaving: '0.000000', confidence: 'high', change: { action: 'revoke-key', keyId: ids.idleKey }, evidence: { facts: { idleDays: 40 } } });

      const again = await generate({ teamId: ids.team });
      expect(again.body.data).toMatchObject({ found: 2, created: 0, charged: '0.000000' });
      const listed = await list(ids.team);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toMatchObject({ demo: false, totalCharged: '0.060000' });
      expect(listed.body.data.insights.map((insight: { id: string }) => insight.id)).toEqual(run.insights.map((insight: { id: string }) => insight.id));
    });

    it('words the tips with the team’s model once its admin turns the setting on, recording each call as the team’s usage', async () => {
      const wording = (body?: unknown, token = admin.token, teamId = ids.team) =>
        callApi(spendgate.url, body === undefined ? 'GET' : 'PUT', `/usage/ai-advisor/wording/${teamId}`, { token, ...(body === undefined ? {} : { body }) });
      const wordingEvents = () =>
        db()
          .selectFrom('usage_events')
          .select(['group_id', 'key_id', 'connection_id', 'provider', 'model', 'route', 'status_code', 'key_kind', 'input_tokens', 'output_tokens', 'cost_micros', 'billed_micros', 'billing_rule', 'budget_spend_micros'])
          .where('team_id', '=', ids.team)
          .where('route', '=', 'advisor-wording')
          .orderBy('occurred_at')
          .execute();
      // Off by default: the templates, and no call.
      expect((await wording()).body.data).toEqual({ teamId: ids.team, enabled: false, source: 'connection', connectionId: null, model: 'gpt-4o-mini', operatorAvailable: true, updatedAt: null });
      const before = fake.requests.length;
      expect((await generate({ teamId: ids.team })).body.data).toMatchObject({ found: 2, written: 0 });
      expect(fake.requests.length).toBe(before);

      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: admin.token,
        body: { teamId: ids.team, provider: 'openai', name: 'Writer', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
      const connectionId = connection.body.data.newConnection.id as string;
      const viaConnection = { enabled: true, source: 'connection', connectionId, model: 'gpt-4o-mini' };
      // Team admins only; another team's connection is not found.
      expect((await wording(viaConnection, member.token)).status).toBe(403);
      expect((await wording(undefined, member.token)).status).toBe(403);
      expect((await wording(viaConnection, stranger.token)).status).toBe(404);
      expect((await wording({ ...viaConnection, connectionId: randomUUID() })).status).toBe(404);
      const saved = await wording(viaConnection);
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(saved.body.data).toMatchObject({ enabled: true, source: 'connection', connectionId, model: 'gpt-4o-mini' });
      const audited = await db().selectFrom('audit_log').select(['action', 'details']).where('team_id', '=', ids.team).where('action', '=', 'advisor.wording_updated').execute();
      expect(audited.map((entry) => entry.details)).toEqual([{ enabled: true, source: 'connection', connectionId, model: 'gpt-4o-mini' }]);

      // A team budget whose counter is running counts each call.
      const budget = await callApi(spendgate.url, 'POST', '/budgets', { token: admin.token, body: { scope: 'team', scopeId: ids.team, amount: '100', window: 'month', mode: 'soft' } });
      expect(budget.status, JSON.stringify(budget.body)).toBe(201);
      const teamSpent = async () =>
        (await callApi(spendgate.url, 'GET', `/budgets?teamId=${ids.team}`, { token: admin.token })).body.data.find((entry: { id: string }) => entry.id === budget.body.data.id).spent as string;
      const spentBefore = await teamSpent();
      // Each answer: 100,000 prompt and 400 output tokens (the limit asked) of gpt-4o-mini ($0.015 + $0.00024 = $0.01524 → £0.01143).
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 100_000, completion_tokens: 400, cached_tokens: 0, reasoning_tokens: 0 });
      const worded = await generate({ teamId: ids.team });
      expect(worded.status, JSON.stringify(worded.body)).toBe(200);
      // The fake answers `echo: <the prompt>`: the same two lines, the same figures, so both are accepted.
      expect(worded.body.data).toMatchObject({ found: 2, created: 0, written: 2, charged: '0.000000' });
      const calls = fake.requests.slice(before);
      expect(calls.map((call) => [call.path, call.headers.authorization])).toEqual([
        ['/v1/chat/completions', 'Bearer sk-fake-upstream'],
        ['/v1/chat/completions', 'Bearer sk-fake-upstream'],
      ]);
      expect((calls[0]!.body as { model: string; messages: { content: string }[] }).messages[1]!.content).toBe(
        'TITLE: Use gpt-5-mini instead of gpt-4o\nTEXT: 10 requests cost £2.625 on gpt-4o. gpt-5-mini is in the same quality tier (accuracy 84 vs 80) and would have cost £0.3375: about £9.803571 a month.',
      );
      expect(worded.body.data.insights[0].title).toBe('Use gpt-5-mini instead of gpt-4o');
      // Each call is the team's usage: no group or key, the connection's, priced as BYOK (paid to the provider, nothing billed).
      const byok = { group_id: null, key_id: null, connection_id: connectionId, provider: 'openai', model: 'gpt-4o-mini-2024-07-18', route: 'advisor-wording', status_code: 200, key_kind: 'byok' };
      const priced = { input_tokens: 100_000n, output_tokens: 400n, cost_micros: 15_240n };
      expect(await wordingEvents()).toEqual(Array(2).fill({ ...byok, ...priced, billed_micros: 0n, billing_rule: 'byok-provider-direct', budget_spend_micros: 11_430n }));
      // 2 × £0.01143 on the team's budget.
      expect(decimalToMicros(await teamSpent())! - decimalToMicros(spentBefore)!).toBe(22_860n);
      // The request log lists them among the team's requests.
      const log = await callApi(spendgate.url, 'GET', `/usage/requests?teamId=${ids.team}&limit=200`, { token: admin.token });
      const logged = log.body.data.items.filter((item: { route: string | null }) => item.route === 'advisor-wording');
      expect(logged.map((item: { groupId: string | null; keyId: string | null; cost: string }) => [item.groupId, item.keyId, item.cost])).toEqual([
        [null, null, '0.011430'],
        [null, null, '0.011430'],
      ]);
      const detail = await callApi(spendgate.url, 'GET', `/usage/requests/${logged[0].requestId}`, { token: admin.token });
      expect([detail.status, detail.body.data.billingRule]).toEqual([200, 'byok-provider-direct']);
      expect((await callApi(spendgate.url, 'GET', `/usage/requests/${logged[0].requestId}`, { token: member.token })).status).toBe(404);

      // Through the operator's upstream: the operator's key, billed as an optimised request (£0.01143 × 1.3 = £0.014859).
      expect((await wording({ enabled: true, source: 'operator', connectionId: null, model: 'gpt-4o-mini' })).status).toBe(200);
      operator.controlHeaders['x-fake-usage'] = fake.controlHeaders['x-fake-usage']!;
      await generate({ teamId: ids.team });
      expect(operator.requests.map((call) => call.headers.authorization)).toEqual(['Bearer sk-operator', 'Bearer sk-operator']);
      expect((await wordingEvents()).slice(2)).toEqual(
        Array(2).fill({ ...byok, ...priced, connection_id: null, key_kind: 'optimised', billed_micros: 14_859n, billing_rule: 'optimised-uplift', budget_spend_micros: 14_859n }),
      );
      delete fake.controlHeaders['x-fake-usage'];
      delete operator.controlHeaders['x-fake-usage'];

      // A provider that fails keeps the template, and the run still succeeds; the failed call is recorded with its status.
      expect((await wording(viaConnection)).status).toBe(200);
      fake.controlHeaders['x-fake-status'] = '500';
      const failed = await generate({ teamId: ids.team });
      delete fake.controlHeaders['x-fake-status'];
      expect(failed.body.data).toMatchObject({ found: 2, written: 0 });
      expect(failed.body.data.insights[0].text).toBe(worded.body.data.insights[0].text);
      expect((await wordingEvents()).slice(4).map((event) => [event.status_code, event.output_tokens, event.cost_micros])).toEqual([
        [500, 0n, 0n],
        [500, 0n, 0n],
      ]);

      // Turned off: the templates again, no call.
      expect((await wording({ ...viaConnection, enabled: false })).body.data.enabled).toBe(false);
      const quiet = fake.requests.length;
      expect((await generate({ teamId: ids.team })).body.data).toMatchObject({ written: 0 });
      expect(fake.requests.length).toBe(quiet);

      const cases: [unknown, string][] = [
        [{ ...viaConnection, enabled: 'yes' }, 'enabled'],
        [{ ...viaConnection, source: 'elsewhere' }, 'source'],
        [{ enabled: true, source: 'connection', model: 'gpt-4o-mini' }, 'connectionId'],
        [{ ...viaConnection, connectionId: 'conn-1' }, 'connectionId'],
        [{ ...viaConnection, model: 'has spaces' }, 'model'],
        [{ enabled: true, source: 'operator', model: 'no-such-model' }, 'model'],
      ];
      for (const [body, field] of cases) {
        const answer = await wording(body);
        expect([answer.status, answer.body.field], JSON.stringify(body)).toEqual([400, field]);
      }
      expect((await wording(undefined, admin.token, 'team-1')).body.field).toBe('teamId');
      await callApi(spendgate.url, 'DELETE', `/provider/connections/${connectionId}`, { token: admin.token });
      await callApi(spendgate.url, 'DELETE', `/budgets/${budget.body.data.id}?teamId=${ids.team}`, { token: admin.token });
    });

    it('finds repeated requests and output limits far above the answers, from what the data plane recorded', async () => {
      const tenant = await signUpTeam(spendgate.url, `advisor-facts-${mode}@example.com`);
      const plaintext = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      const send = (body: string) =>
        fetch(`${spendgate.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${plaintext}`, 'content-type': 'application/json' }, body });
      const repeated = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Summarise the release notes' }], max_tokens: 4096 });
      // Each answer: 100,000 prompt and 500 output tokens of gpt-4o ($0.25 + $0.005 = $0.255 → £0.19125).
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 100_000, completion_tokens: 500, cached_tokens: 0, reasoning_tokens: 0 });
      try {
        const answers = await Promise.all([
          ...Array.from({ length: 12 }, () => send(repeated)),
          ...Array.from({ length: 10 }, (_, index) =>
            send(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `Question ${index}` }], max_completion_tokens: 4096 })),
          ),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual(Array(22).fill(200));
      } finally {
        delete fake.controlHeaders['x-fake-usage'];
      }
      await usageWritten(spendgate);
      const recordedEvents = (teamId = tenant.teamId) => db().selectFrom('usage_events').select(['body_hmac', 'requested_output_tokens']).where('team_id', '=', teamId).execute();
      // On a loaded machine a batch the queue is slow to take goes through the outbox, a little later.
      await expect.poll(async () => (await recordedEvents()).length, { timeout: 30_000 }).toBe(22);
      const events = await recordedEvents();
      /** HMAC-SHA256 under the team's key: HKDF-SHA256 of the master key with the team id as its info. */
      const fingerprint = (teamId: string, body: string) =>
        createHmac('sha256', Buffer.from(hkdfSync('sha256', spendgate.app.runtime.config.secrets.masterKey, 'spendgate:body-hmac:v1', teamId, 32))).update(body).digest('hex');
      expect(events.filter((event) => event.body_hmac === fingerprint(tenant.teamId, repeated))).toHaveLength(12);
      expect(new Set(events.map((event) => event.body_hmac)).size).toBe(11);
      expect(events.every((event) => event.requested_output_tokens === 4096)).toBe(true);
      // Not the plain SHA-256 a guess could be checked against; and another team's same body is another fingerprint.
      expect(events.some((event) => event.body_hmac === createHash('sha256').update(repeated).digest('hex'))).toBe(false);
      const neighbour = await signUpTeam(spendgate.url, `advisor-facts-neighbour-${mode}@example.com`);
      const neighbourKey = await issueByokKey(spendgate.url, neighbour, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      for (let sent = 0; sent < 2; sent++) {
        const answer = await fetch(`${spendgate.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${neighbourKey}`, 'content-type': 'application/json' }, body: repeated });
        expect(answer.status).toBe(200);
      }
      await usageWritten(spendgate);
      await expect.poll(async () => (await recordedEvents(neighbour.teamId)).length, { timeout: 30_000 }).toBe(2);
      expect((await recordedEvents(neighbour.teamId)).map((event) => event.body_hmac)).toEqual([fingerprint(neighbour.teamId, repeated), fingerprint(neighbour.teamId, repeated)]);
      expect(fingerprint(neighbour.teamId, repeated)).not.toBe(fingerprint(tenant.teamId, repeated));

      const run = await generate({ teamId: tenant.teamId }, tenant.token);
      const served = 'gpt-4o-2024-08-06'; // the snapshot the provider names in its answer, as recorded
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      const byKind = (kind: string) => run.body.data.insights.find((insight: { kind: string }) => insight.kind === kind);
      // 11 repeats × £0.19125 = £2.10375, all answerable from a cache; over the trial's 7 days × 30/7 = £9.016071 a month (half-up).
      expect(byKind('duplicate-requests')).toMatchObject({
        currentCost: '2.103750',
        counterfactualCost: '0.000000',
        estimatedMonthlySaving: '9.016071',
        confidence: 'medium',
        evidence: { requests: 11, facts: { repeatedBodies: 1 } },
        change: { action: 'manual', instruction: `Cache the answers to repeated ${served} requests of key openai and serve repeats from the cache` },
      });
      // 22 requests asked for 4,096 output tokens and got 500: each reserves 4,096 × $10/M = $0.04096 → £0.03072 of output; at a
      // limit of 1,024 (2 × 500 rounded up to 256s) $0.01024 → £0.00768. Spend is what it is either way: 22 × £0.19125 = £4.2075.
      expect(byKind('oversized-output-limit')).toMatchObject({
        currentCost: '4.207500',
        counterfactualCost: '4.207500',
        estimatedMonthlySaving: '0.000000',
        confidence: 'high',
        evidence: { requests: 22, facts: { largestRequestedOutputTokens: 4096, largestOutputTokens: 500, suggestedCap: 1024, reservedOutputMicros: 30_720, reservedOutputAtCapMicros: 7_680 } },
        change: { action: 'key-setting', settings: { maxOutputTokens: 1024 }, description: 'Cap every answer of key openai at 1024 output tokens, at least twice the longest it got' },
      });
      expect(byKind('oversized-output-limit').text).toBe(
        '22 requests cost £4.2075 asking for up to 4,096 output tokens; the longest answer was 500. Each request reserves £0.03072 of output on its budgets ' +
          '(£0.00768 at a limit of 1,024), so a hard budget refuses or caps requests sooner. Spend does not change.',
      );
      // Applied, the key caps every answer (the next request asking 4,096 is sent 1,024); a lower limit has no spend to measure.
      const applied = await apply(byKind('oversized-output-limit').id, tenant.token);
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      expect(applied.body.data).toMatchObject({ realisedMonthlySaving: null });
      expect(applied.body.data.appliedAt).not.toBeNull();
      const capped = await send(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Capped now' }], max_tokens: 4096 }));
      expect([capped.status, capped.headers.get('x-spendgate-output-cap')]).toEqual([200, '1024; reason=key-setting']);
      expect(fake.requests.at(-1)!.body).toMatchObject({ max_tokens: 1024 });
      await usageWritten(spendgate);
      await expect.poll(async () => (await recordedEvents()).length, { timeout: 30_000 }).toBe(23);

      // Each surface's own output limit is recorded with its body's hash; an embedding asks for none.
      const surfaces = [
        ['/v1/messages', JSON.stringify({ model: 'gpt-4o', max_tokens: 700, messages: [{ role: 'user', content: 'Hello' }] })],
        ['/v1/responses', JSON.stringify({ model: 'gpt-4o', input: 'Hello', max_output_tokens: 300 })],
        ['/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'Hello' })],
      ] as const;
      for (const [path, body] of surfaces) {
        const answer = await fetch(`${spendgate.url}${path}`, { method: 'POST', headers: { 'x-api-key': plaintext, 'content-type': 'application/json' }, body });
        expect(answer.status, `${path}: ${await answer.text()}`).toBe(200);
      }
      await usageWritten(spendgate);
      const surfaceEvents = () => db()
        .selectFrom('usage_events')
        .select(['endpoint', 'body_hmac', 'requested_output_tokens'])
        .where('team_id', '=', tenant.teamId)
        .where('endpoint', 'in', ['messages', 'responses', 'embeddings'])
        .orderBy('endpoint')
        .execute();
      await expect.poll(async () => (await surfaceEvents()).length, { timeout: 30_000 }).toBe(3);
      const recorded = await surfaceEvents();
      expect(recorded).toEqual([
        { endpoint: 'embeddings', body_hmac: fingerprint(tenant.teamId, surfaces[2][1]), requested_output_tokens: null },
        { endpoint: 'messages', body_hmac: fingerprint(tenant.teamId, surfaces[0][1]), requested_output_tokens: 700 },
        { endpoint: 'responses', body_hmac: fingerprint(tenant.teamId, surfaces[1][1]), requested_output_tokens: 300 },
      ]);
    });

    it('analyses only the named groups, keys and days', async () => {
      const onlyIdle = await generate({ teamId: ids.team, data: [{ type: 'key', id: ids.idleKey }] });
      expect(onlyIdle.body.data).toMatchObject({ found: 1, created: 0, charged: '0.000000' });
      expect(onlyIdle.body.data.insights[0].kind).toBe('idle-key');
      const day = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
      const quiet = await generate({ teamId: ids.team, data: [{ type: 'group', id: ids.group }, { type: 'dateRange', startDate: day, endDate: day }] });
      expect(quiet.status, JSON.stringify(quiet.body)).toBe(200);
      expect(quiet.body.data.insights.map((insight: { kind: string }) => insight.kind)).toEqual(['idle-key']);
    });

    it('charges each finding once under concurrent runs, at the Enterprise price', async () => {
      const owner = await signUp(spendgate.url, `advisor-enterprise-${mode}@example.com`);
      await db().updateTable('subscriptions').set({ plan_slug: 'enterprise' }).where('user_id', '=', owner.userId).execute();
      const made = await teamWithUsage(owner, 'Concurrent', 5);
      const runs = await Promise.all(Array.from({ length: 4 }, () => generate({ teamId: made.team }, owner.token)));
      expect(runs.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(runs.reduce((sum, answer) => sum + answer.body.data.created, 0)).toBe(2);
      const listed = (await list(made.team, owner.token)).body.data;
      expect(listed.insights.map((insight: { price: string }) => insight.price)).toEqual(['0.020000', '0.020000']);
      expect(listed.totalCharged).toBe('0.040000');
      const rows = await db().selectFrom('advisor_insights').select((eb) => eb.fn.countAll<string>().as('count')).where('team_id', '=', made.team).executeTakeFirstOrThrow();
      expect(Number(rows.count)).toBe(2);
    });

    it('charges a demo team nothing for its tips, and says they are free', async () => {
      const owner = await signUp(spendgate.url, `advisor-demo-${mode}@example.com`);
      await db().updateTable('subscriptions').set({ plan_slug: 'growth' }).where('user_id', '=', owner.userId).execute();
      const made = await teamWithUsage(owner, 'Sample', 5);
      await db().updateTable('teams').set({ is_demo: true }).where('id', '=', made.team).execute();
      const run = await generate({ teamId: made.team }, owner.token);
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect(run.body.data).toMatchObject({ demo: true, found: 2, created: 2, charged: '0.000000' });
      const listed = (await list(made.team, owner.token)).body.data;
      expect(listed).toMatchObject({ demo: true, totalCharged: '0.000000' });
      expect(listed.insights.map((insight: { price: string }) => insight.price)).toEqual(['0.000000', '0.000000']);
      const recorded = await db().selectFrom('advisor_insights').select('price_micros').where('team_id', '=', made.team).execute();
      expect(recorded.map((insight) => insight.price_micros)).toEqual([0n, 0n]);
      // Never billed, so its tips are not written through the operator's upstream either.
      const operatorWording = await callApi(spendgate.url, 'PUT', `/usage/ai-advisor/wording/${made.team}`, {
        token: owner.token,
        body: { enabled: true, source: 'operator', connectionId: null, model: 'gpt-4o-mini' },
      });
      expect([operatorWording.status, operatorWording.body.field, operatorWording.body.message]).toEqual([
        400,
        'source',
        "source: a demo team is never billed, so its tips cannot be written through the operator's upstream; choose one of its connections",
      ]);
    });

    it('applies in one click: revokes the idle key, and measures the realised saving days later', async () => {
      const { insights } = (await list(ids.team)).body.data;
      const idle = insights.find((insight: { kind: string }) => insight.kind === 'idle-key');
      const applied = await apply(idle.id);
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      expect(applied.body.data).toMatchObject({ id: idle.id, realisedMonthlySaving: '0.000000' });
      expect(applied.body.data.appliedAt).not.toBeNull();
      const key = await db().selectFrom('issued_keys').select('revoked_at').where('id', '=', ids.idleKey).executeTakeFirstOrThrow();
      expect(key.revoked_at).not.toBeNull();
      expect((await apply(idle.id)).status).toBe(409);

      // The model tip overrides gpt-4o on the key, kept beside its other settings, as a manual edit of them is audited.
      const model = insights.find((insight: { kind: string }) => insight.kind === 'cheaper-model');
      const appliedModel = await apply(model.id);
      expect(appliedModel.status, JSON.stringify(appliedModel.body)).toBe(200);
      expect(appliedModel.body.data.realisedMonthlySaving).toBeNull(); // not a whole day yet
      const group = await callApi(spendgate.url, 'GET', `/synthetic-group/${ids.group}`, { token: admin.token });
      expect(group.body.data.syntheticGroupProviderKeys.find((key: { id: string }) => key.id === ids.key).settings).toEqual({
        rateLimit: { requestsPerMinute: 600 },
        modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-5-mini' }],
      });
      const audit = await db().selectFrom('audit_log').select(['action', 'actor_user_id']).where('team_id', '=', ids.team).where('target_id', '=', ids.key).execute();
      expect(audit).toEqual([{ action: 'key.updated', actor_user_id: admin.userId }]);
      // Two days after the change the key's traffic, now on gpt-5-mini, cost £0.03: before, £2.625 over the 7 days.
      // The whole key is measured (its traffic moved model), not gpt-4o alone, which would claim all £2.625.
      await db().updateTable('advisor_insights').set({ applied_at: new Date(Date.now() - 2 * DAY_MS) }).where('id', '=', model.id).execute();
      await insertUsageEvents(db(), [usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.key }, 1, { key_kind: 'byok', model: 'gpt-5-mini', budget_spend_micros: 30_000n })]);
      const measured = (await list(ids.team)).body.data.insights.find((insight: { id: string }) => insight.id === model.id);
      // (£2.625 × 30 / 7) − (£0.03 × 30 / 2) = £11.25 − £0.45 = £10.80 a month.
      expect(measured.realisedMonthlySaving).toBe('10.800000');
      expect(measured.estimatedMonthlySaving).toBe('9.803571');
    });

    it('applies a cheaper connection for the same model and an output cap in one click, merged into the key’s settings', async () => {
      const tenant = await signUpTeam(spendgate.url, `advisor-provider-${mode}@example.com`);
      const connect = async (provider: string) => {
        const created = await callApi(spendgate.url, 'POST', '/provider/connections', {
          token: tenant.token,
          body: { teamId: tenant.teamId, provider, name: `${provider} account`, apiKey: 'sk-fake-upstream', baseUrl: fake.url },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body.data.newConnection.id as string;
      };
      const groq = await connect('groq');
      const openRouter = await connect('openrouter');
      const issued = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'open-weights', kind: 'byok', connectionId: groq, settings: { timeoutMs: 20_000 } },
      });
      const keyId = issued.body.data.providerKey.id as string;
      // 20 answers through Groq of 100,000 prompt and 500 output tokens, each asking for up to 4,096.
      await insertUsageEvents(
        db(),
        Array.from({ length: 20 }, (_, index) =>
          usageEvent({ teamId: tenant.teamId, groupId: tenant.groupId, keyId }, 1 + (index % 3), {
            key_kind: 'byok',
            connection_id: groq,
            provider: 'groq',
            model: 'openai/gpt-oss-120b',
            input_tokens: 100_000n,
            output_tokens: 500n,
            requested_output_tokens: 4_096,
          }),
        ),
      );
      const run = await generate({ teamId: tenant.teamId }, tenant.token);
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      const byKind = (kind: string) => run.body.data.insights.find((insight: { kind: string }) => insight.kind === kind);
      // Groq $0.15 / $0.60 per 1M: 20 × ($0.015 + $0.0003) = $0.306 → £0.2295; OpenRouter $0.03 / $0.17: 20 × ($0.003 + $0.000085)
      // = $0.0617 → £0.046275. £0.183225 over the trial's 7 days × 30/7 = £0.78525 a month.
      expect(byKind('cheaper-provider')).toMatchObject({
        currentCost: '0.229500',
        counterfactualCost: '0.046275',
        estimatedMonthlySaving: '0.785250',
        change: {
          action: 'key-setting',
          keyId,
          settings: { modelOverrides: [{ replace: 'openai/gpt-oss-120b', with: 'openai/gpt-oss-120b', connectionId: openRouter }] },
          description: 'On key open-weights, send openai/gpt-oss-120b requests through the openrouter connection "openrouter account"',
        },
      });
      expect(byKind('oversized-output-limit').change).toMatchObject({ action: 'key-setting', keyId, settings: { maxOutputTokens: 1024 } });

      for (const kind of ['cheaper-provider', 'oversized-output-limit']) {
        const applied = await apply(byKind(kind).id, tenant.token);
        expect(applied.status, JSON.stringify(applied.body)).toBe(200);
        expect(applied.body.data.appliedAt).not.toBeNull();
      }
      const group = await callApi(spendgate.url, 'GET', `/synthetic-group/${tenant.groupId}`, { token: tenant.token });
      expect(group.body.data.syntheticGroupProviderKeys.find((key: { id: string }) => key.id === keyId).settings).toEqual({
        timeoutMs: 20_000,
        maxOutputTokens: 1024,
        modelOverrides: [{ replace: 'openai/gpt-oss-120b', with: 'openai/gpt-oss-120b', connectionId: openRouter }],
      });
      expect((await apply(byKind('cheaper-provider').id, tenant.token)).status).toBe(409);
      const audit = await db().selectFrom('audit_log').select('action').where('team_id', '=', tenant.teamId).where('target_id', '=', keyId).execute();
      expect(audit.map((row) => row.action)).toEqual(['key.created', 'key.updated', 'key.updated']);
    });

    it('is for team admins: a member is refused, another team answers 404', async () => {
      expect((await list(ids.team, member.token)).status).toBe(403);
      expect((await generate({ teamId: ids.team }, member.token)).status).toBe(403);
      const { insights } = (await list(ids.team)).body.data;
      expect((await apply(insights[0].id, member.token)).status).toBe(403);
      expect((await list(ids.team, stranger.token)).status).toBe(404);
      expect((await generate({ teamId: ids.team }, stranger.token)).status).toBe(404);
      expect((await apply(insights[0].id, stranger.token)).status).toBe(404);
      expect((await apply(randomUUID())).status).toBe(404);
      const otherGroup = await generate({ teamId: ids.team, data: [{ type: 'group', id: ids.otherGroup }] });
      expect([otherGroup.status, otherGroup.body.message]).toEqual([404, expect.stringContaining('Synthetic group')]);
      expect((await generate({ teamId: ids.team, data: [{ type: 'key', id: randomUUID() }] })).status).toBe(404);
    });

    it('refuses bad input with 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ data: [] }, 'teamId'],
        [{ teamId: 'team-1' }, 'teamId'],
        [{ teamId: ids.team, data: 'everything' }, 'data'],
        [{ teamId: ids.team, data: [{ type: 'group', id: 'nope' }] }, 'data.0.id'],
        [{ teamId: ids.team, data: [{ type: 'model', id: ids.group }] }, 'data.0.type'],
        [{ teamId: ids.team, data: [{ type: 'dateRange', startDate: '2026-11-10', endDate: '2026-11-01' }] }, 'data.0.endDate'],
        [{ teamId: ids.team, data: [{ type: 'dateRange', startDate: '2026-02-30', endDate: '2026-03-01' }] }, 'data.0.startDate'],
        [
          {
            teamId: ids.team,
            data: [
              { type: 'dateRange', startDate: '2026-11-01', endDate: '2026-11-02' },
              { type: 'dateRange', startDate: '2026-11-03', endDate: '2026-11-04' },
            ],
          },
          'data',
        ],
      ];
      for (const [body, field] of cases) {
        const answer = await generate(body);
        expect([answer.status, answer.body.field], JSON.stringify(body)).toEqual([400, field]);
      }
      const notId = await apply('not-an-id');
      expect([notId.status, notId.body.field]).toEqual([400, 'id']);
      expect((await callApi(spendgate.url, 'GET', '/usage/ai-advisor', { token: admin.token })).body.field).toBe('teamId');
    });
  });
}
