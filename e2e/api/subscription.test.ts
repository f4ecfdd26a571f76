/**
 * A subscription's trial, access and invoices through the API and the data plane, in
 * every run mode, on a clock the test sets (the gateway's and the invoice job's): sign-up
 * on the plan chosen at /register?plan= starts a 60-day trial without a card; once it has
 * ended without a payment method BYOK keys keep working while optimised and BYOM keys are
 * refused with a 402 the OpenAI SDK surfaces, and check-access says why; a payment method
 * brings them back and billing starts; the period's requests make an invoice whose lines
 * equal the amounts computed by hand, listed, opened and traced to its requests page by
 * page; every call is its owner's only, with a 400 naming a wrong field; and usage a
 * platform admin records is stored once per identifier and charged on the next invoice.
 */
import { insertPaymentMethod } from '@spendgate/store';
import { createInvoiceBuildProcessor } from '@spendgate/worker';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueByokKey, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** What the fake provider reports: 100,000 input and 20,000 output tokens of gpt-4o. */
const USAGE = JSON.stringify({ prompt_tokens: 100_000, completion_tokens: 20_000 });

for (const mode of testModes) {
  describe(`a subscription's trial, access and invoices (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let operator: FakeOpenAI;
    let selfHosted: FakeOpenAI;
    // Registration 61 days ago: the trial ended a day before the real now, when the data plane records requests.
    let now = new Date(Date.now() - 61 * DAY_MS);
    let tenant: Tenant;
    let userId: string;
    const keys: Record<'byok' | 'optimised' | 'byom', string> = { byok: '', optimised: '', byom: '' };
    const requestIds: { optimised: string[]; byom: string[] } = { optimised: [], byom: [] };
    let invoiceId: string;

    const api = (method: string, path: string, options: { token?: string; body?: unknown } = {}) => callApi(spendgate.url, method, path, { token: tenant.token, ...options });
    const client = (key: string) => new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
    const ask = (key: string, model = 'gpt-4o') => client(key).chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    const buildInvoices = (at: Date) => createInvoiceBuildProcessor({ sql: spendgate.app.runtime.stores.sql, log: { info: () => {} }, invalidateKey: spendgate.app.runtime.stores.invalidateKey, usageEventRetentionDays: spendgate.app.runtime.config.usageEventRetentionDays, now: () => at })();

    beforeAll(async () => {
      operator = await startFakeOpenAI({ apiKey: 'sk-operator' });
      selfHosted = await startFakeOpenAI({ apiKey: 'local-model-key' });
      operator.controlHeaders['x-fake-usage'] = USAGE;
      spendgate = await startSpendgate(mode, 'api-subscription', {
        env: { OPTIMISED_UPSTREAMS: JSON.stringify({ openai: { apiKey: 'sk-operator', baseUrl: operator.url } }), PLATFORM_ADMIN_EMAILS: `operator-${mode}@example.com` },
        clock: () => now,
      });
    });
    afterAll(async () => {
      await spendgate?.close();
      await operator?.close();
      await selfHosted?.close();
    });

    it('starts a 60-day trial without a card on the plan chosen at /register?plan=', async () => {
      const growth = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data.find((plan: { slug: string }) => plan.slug === 'growth');
      const registeredAt = now;
      tenant = await signUpTeam(spendgate.url, `trial-${mode}@example.com`, { planId: growth.id });
      const profile = await api('GET', '/auth/profile');
      userId = profile.body.data.user.id;
      expect(profile.body.data.user.subscription).toEqual({
        plan: 'growth',
        status: 'trialing',
        trialEnd: new Date(registeredAt.getTime() + 60 * DAY_MS).toISOString(),
        isTrialing: true,
      });
      const access = await api('POST', '/subscription/check-access', { body: { teamId: tenant.teamId } });
      expect(access.status).toBe(200);
      expect(access.body.data).toMatchObject({
        teamId: tenant.teamId,
        plan: { slug: 'growth', name: 'Growth' },
        status: 'trialing',
        trialDaysLeft: 60,
        hasPaymentMethod: false,
        paidByYou: true,
        keys: { byok: true, optimised: true, byom: true },
        stoppedBecause: null,
        allowances: {
          seats: { used: 1, included: 5, extra: 0, canAddMore: true },
          syntheticGroups: { used: 1, included: 10, extra: 0, canAddMore: true },
          optimisedKeys: { used: 0, included: 10, extra: 0, canAddMore: true },
        },
        lookBackDays: 90,
        alertChannels: ['email'],
        subscriptionPath: '/dashboard/settings/subscription',
      });
      // The trial is the current period: priced as it would be, nothing charged.
      const usage = await api('GET', '/subscription/usage');
      expect(usage.body, JSON.stringify(usage.body)).toMatchObject({ data: { period: { trial: true }, charged: false, status: 'trialing' } });
    });

    it('keeps BYOK keys working after a trial ended without a payment method, and stops optimised and BYOM keys with a 402 saying why', async () => {
      keys.byok = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-operator', baseUrl: operator.url });
      keys.optimised = (await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { body: { name: 'auto', kind: 'optimised' } })).body.data.key;
      const connection = await api('POST', '/provider/connections', {
        body: { teamId: tenant.teamId, provider: 'openai-compatible', name: 'vLLM', apiKey: 'local-model-key', baseUrl: selfHosted.url },
      });
      keys.byom = (await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { body: { name: 'own', kind: 'byom', connectionId: connection.body.data.newConnection.id } }))
        .body.data.key;
      // Every kind works during the trial (the keys are now cached by the gateway). The data plane
      // records at the real time, in the billing period that starts at the trial's end a day before.
      for (const kind of ['byok', 'optimised', 'byom'] as const) {
        const { response } = await ask(keys[kind], kind === 'byom' ? 'llama3.1:8b' : 'gpt-4o');
        expect(response.status).toBe(200);
        if (kind !== 'byok') requestIds[kind].push(response.headers.get('x-spendgate-request-id')!);
      }

      now = new Date(); // a day past the trial's end
      const trialEnd = (await api('GET', '/auth/profile')).body.data.user.subscription.trialEnd.slice(0, 10);
      expect((await ask(keys.byok)).response.status).toBe(200);
      const why = `The free trial of the Growth plan ended on ${trialEnd} without a payment method: add one to use optimised and BYOM keys again (BYOK keys keep working).`;
      for (const [key, model] of [
        [keys.optimised, 'gpt-4o'],
        [keys.byom, 'llama3.1:8b'],
      ] as const) {
        await expect(ask(key, model)).rejects.toMatchObject({
          status: 402,
          code: 'payment_required',
          message: `402 ${why} Add a payment method at ${spendgate.app.runtime.config.publicUrl}/dashboard/settings/subscription`,
        });
      }
      const access = await api('POST', '/subscription/check-access', { body: { teamId: tenant.teamId } });
      expect(access.body.data).toMatchObject({ status: 'paused', trialDaysLeft: null, keys: { byok: true, optimised: false, byom: false }, stoppedBecause: why });
      expect((await api('GET', '/auth/profile')).body.data.user.subscription).toMatchObject({ status: 'paused', isTrialing: false });
    });

    it('serves them again once a payment method is on file, and starts billing at the trial’s end', async () => {
      const subscription = await spendgate.app.runtime.stores.sql.db.selectFrom('subscriptions').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow();
      await insertPaymentMethod(spendgate.app.runtime.stores.sql.db, {
        id: crypto.randomUUID(),
        subscriptionId: subscription.id,
        stripePaymentMethodId: `pm_card_visa_${mode}`,
        brand: 'visa',
        last4: '4242',
        expMonth: 12,
        expYear: 2034,
        isDefault: true,
      });
      await spendgate.app.runtime.services.subscriptions.refreshKeys(userId);
      await buildInvoices(now);
      expect((await api('POST', '/subscription/check-access', { body: { teamId: tenant.teamId } })).body.data).toMatchObject({ status: 'active', keys: { optimised: true, byom: true } });

      for (let i = 0; i < 2; i++) requestIds.optimised.push((await ask(keys.optimised)).response.headers.get('x-spendgate-request-id')!);
      requestIds.byom.push((await ask(keys.byom, 'llama3.1:8b')).response.headers.get('x-spendgate-request-id')!);
      await usageWritten(spendgate);
    });

    it("invoices the period's requests, each line as computed by hand, and traces each line to its requests", async () => {
      const current = (await api('GET', '/subscription/usage')).body.data;
      expect([current.charged, current.period.trial]).toEqual([true, false]);
      const periodEnd = new Date(current.period.end);
      now = new Date(periodEnd.getTime() + 2 * HOUR_MS);
      await buildInvoices(now);
      await buildInvoices(now);

      const invoices = await api('GET', '/subscription/billing');
      expect(invoices.status).toBe(200);
      expect(invoices.body.data).toHaveLength(1);
      expect(invoices.body.data[0]).toMatchObject({ status: 'open', currency: 'GBP', periodStart: current.period.start, periodEnd: current.period.end, totalPence: 10_028 });
      invoiceId = invoices.body.data[0].id;

      const invoice = await api('GET', `/subscription/invoice/${invoiceId}`);
      expect(invoice.status).toBe(200);
      // $: 100,000 × 2.50 + 20,000 × 10 per million = 450,000 µ$ → × 0.75 × 1.25 (Growth's uplift) = 421,875 µ£ a request.
      expect(invoice.body.data.lines.map((line: Record<string, unknown>) => [line.kind, line.quantity, line.unitAmountMicros, line.amountMicros, line.amountPence, line.counts])).toEqual([
        ['plan', 1, '99000000', '99000000', 9_900, null],
        ['byom-routing-fee', 2, '4000', '8000', 1, 'usage-events'], // 2 × £0.004: 0.8p
        ['optimised-uplift', 3, null, '1265625', 127, 'usage-events'], // 3 × 42.1875p
      ]);
      const uplift = invoice.body.data.lines.find((line: { kind: string }) => line.kind === 'optimised-uplift');
      expect(uplift.teamId).toBe(tenant.teamId);
      const first = await api('GET', `${uplift.itemsUrl.replace(/^\/api/, '')}?limit=1`);
      expect(first.status).toBe(200);
      const rest = await api('GET', `${uplift.itemsUrl.replace(/^\/api/, '')}?limit=2&cursor=${first.body.data.nextCursor}`);
      expect(rest.body.data.nextCursor).toBeNull();
      const traced = [...first.body.data.items, ...rest.body.data.items];
      expect(traced.map((item: { id: string }) => item.id).sort()).toEqual([...requestIds.optimised].sort());
      expect(traced.map((item: { amountMicros: string }) => item.amountMicros)).toEqual(['421875', '421875', '421875']);

      // The period just invoiced is the previous one now, priced the same.
      const previous = await api('GET', '/subscription/usage?period=previous');
      expect(previous.body.data.totalPence).toBe(10_028);
      expect(previous.body.data.teams).toEqual([
        expect.objectContaining({ teamId: tenant.teamId, allowances: expect.objectContaining({ optimisedKeys: { used: 1, included: 10, extra: 0, canAddMore: true } }) }),
      ]);
    });

    it("answers only its owner, and names a wrong field with a 400", async () => {
      const other = await signUp(spendgate.url, `other-${mode}@example.com`);
      const asOther = (method: string, path: string, body?: unknown) => callApi(spendgate.url, method, path, { token: other.token, ...(body ? { body } : {}) });
      expect((await asOther('GET', `/subscription/invoice/${invoiceId}`)).status).toBe(404);
      const line = (await api('GET', `/subscription/invoice/${invoiceId}`)).body.data.lines[1];
      expect((await asOther('GET', `/subscription/invoice/${invoiceId}/lines/${line.id}/items`)).status).toBe(404);
      expect((await asOther('GET', '/subscription/billing')).body.data).toEqual([]);
      const notMember = await asOther('POST', '/subscription/check-access', { teamId: tenant.teamId });
      expect(notMember.status, JSON.stringify(notMember.body)).toBe(404);
      expect((await asOther('GET', '/subscription/usage?period=previous')).status).toBe(404);

      for (const [method, path, body, field] of [
        ['GET', '/subscription/invoice/not-an-id', undefined, 'invoiceId'],
        ['GET', '/subscription/usage?period=last', undefined, 'period'],
        ['POST', '/subscription/check-access', {}, 'teamId'],
        ['GET', `/subscription/invoice/${invoiceId}/lines/${line.id}/items?limit=0`, undefined, 'limit'],
        ['GET', `/subscription/invoice/${invoiceId}/lines/${line.id}/items?cursor=bm9wZQ`, undefined, 'cursor'],
      ] as const) {
        const answer = await api(method, path, body === undefined ? {} : { body });
        expect([answer.status, answer.body.field], path).toEqual([400, field]);
      }
      expect((await callApi(spendgate.url, 'GET', '/subscription/billing')).status).toBe(401);
    });

    it("records a meter's quantity once per identifier (platform admins) and charges it on the period's invoice", async () => {
      const operatorAdmin = await signUp(spendgate.url, `operator-${mode}@example.com`);
      const record = (body: Record<string, unknown>, token = operatorAdmin.token) => callApi(spendgate.url, 'POST', '/subscription/record-usage', { token, body });
      const usage = { teamId: tenant.teamId, meter: 'byom-requests', quantity: 250, identifier: 'relay:2026-12-01', description: 'On-premises relay' };

      const first = await record(usage);
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      expect(first.body.data).toMatchObject({ ...usage, unitAmountMicros: '4000', amountMicros: '1000000', replayed: false }); // 250 × £0.004 = £1
      const again = await record(usage);
      expect([again.status, again.body.data.id, again.body.data.replayed]).toEqual([200, first.body.data.id, true]);
      expect((await record({ ...usage, quantity: 251 })).status).toBe(409);
      expect((await record({ ...usage, identifier: 'relay:by-a-customer' }, tenant.token)).status).toBe(403);
      // A demo team is never charged (core's isCharged): nothing is recorded on it.
      const demoTeam = (await callApi(spendgate.url, 'POST', '/team/', { token: tenant.token, body: { name: 'Samples' } })).body.data.id as string;
      await spendgate.app.runtime.stores.sql.db.updateTable('teams').set({ is_demo: true }).where('id', '=', demoTeam).execute();
      const onDemo = await record({ ...usage, teamId: demoTeam, identifier: 'relay:demo' });
      expect([onDemo.status, onDemo.body.message]).toEqual([409, 'A demo team is never billed: record usage on a real team']);
      for (const [change, field] of [
        [{ meter: 'gpu-hours' }, 'meter'],
        [{ quantity: 0 }, 'quantity'],
        [{ quantity: 1.5 }, 'quantity'],
        [{ identifier: 'has spaces' }, 'identifier'],
        [{ timestamp: new Date(now.getTime() + 3_600_000).toISOString() }, 'timestamp'],
        [{ timestamp: 'yesterday' }, 'timestamp'],
      ] as const) {
        const refused = await record({ ...usage, identifier: 'relay:refused', ...change });
        expect([refused.status, refused.body.field], JSON.stringify(change)).toEqual([400, field]);
      }

      const current = (await api('GET', '/subscription/usage')).body.data;
      expect(current.lines.find((line: { kind: string }) => line.kind === 'recorded-usage')).toMatchObject({ meter: 'byom-requests', quantity: 250, amountPence: 100 });
      now = new Date(new Date(current.period.end).getTime() + 2 * HOUR_MS);
      await buildInvoices(now);
      const [latest] = (await api('GET', '/subscription/billing')).body.data;
      expect(latest.totalPence).toBe(9_900 + 100);
      const lines = (await api('GET', `/subscription/invoice/${latest.id}`)).body.data.lines;
      const recorded = lines.find((line: { kind: string }) => line.kind === 'recorded-usage');
      expect([recorded.meter, recorded.quantity, recorded.unitAmountMicros, recorded.amountMicros, recorded.amountPence, recorded.counts]).toEqual(['byom-requests', 250, '4000', '1000000', 100, 'usage-records']);
      const items = await api('GET', recorded.itemsUrl.replace(/^\/api/, ''));
      expect(items.body.data.items).toEqual([expect.objectContaining({ id: first.body.data.id, amountMicros: '1000000', detail: '250 × byom-requests: On-premises relay' })]);
    });
  });
}
