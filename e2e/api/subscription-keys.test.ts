/**
 * A subscription changed by the worker reaches the data plane at once, in every run mode:
 * the gateway caches a key with its subscription's state for up to 60 s, so the worker's
 * jobs drop the account's keys from every gateway's key cache when they change what the
 * keys may do. A team whose trial ended without a card gets 402 on its optimised key; the
 * webhook of a completed checkout arrives (no success page asked) and the stripe-event job
 * applies it: the very next request is served. A subscription cancelled at its period's
 * end is ended by invoice-build: the very next request is refused.
 */
import { createInvoiceBuildProcessor } from '@spendgate/worker';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

for (const mode of testModes) {
  describe(`a subscription changed by the worker reaches the data plane at once (${mode})`, () => {
    let fake: FakeStripe;
    let operator: FakeOpenAI;
    let spendgate: RunningSpendgate;
    // Registration 61 days ago: the trial ends a day before the real now.
    let now = new Date(Date.now() - 61 * DAY_MS);
    let tenant: Tenant;
    let optimisedKey: string;

    const api = (method: string, path: string, body?: unknown) => callApi(spendgate.url, method, path, { token: tenant.token, ...(body === undefined ? {} : { body }) });
    const ask = () =>
      new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: optimisedKey, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }).then(
        () => 200,
        (error: { status?: number }) => error.status,
      );
    const buildInvoices = (at: Date) =>
      createInvoiceBuildProcessor({ sql: spendgate.app.runtime.stores.sql, log: { info: () => {} }, invalidateKey: spendgate.app.runtime.stores.invalidateKey, usageEventRetentionDays: spendgate.app.runtime.config.usageEventRetentionDays, now: () => at })();

    beforeAll(async () => {
      fake = await startFakeStripe();
      operator = await startFakeOpenAI({ apiKey: 'sk-operator' });
      spendgate = await startSpendgate(mode, `subscription-keys-${mode}`, {
        env: {
          STRIPE_API_URL: fake.url,
          STRIPE_SECRET_KEY: fake.apiKey,
          STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
          OPTIMISED_UPSTREAMS: JSON.stringify({ openai: { apiKey: 'sk-operator', baseUrl: operator.url } }),
        },
        clock: () => now,
      });
      const growth = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data.find((plan: { slug: string }) => plan.slug === 'growth');
      tenant = await signUpTeam(spendgate.url, `keys-${mode}@example.com`, { planId: growth.id });
      optimisedKey = (await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'auto', kind: 'optimised' })).body.data.key;
    });
    afterAll(async () => {
      await spendgate?.close();
      await operator?.close();
      await fake?.close();
    });

    it("serves a paused team's optimised key on the very next request once the webhook of its checkout is processed", async () => {
      expect(await ask()).toBe(200); // during the trial: the key is now cached with its subscription
      now = new Date();
      expect(await ask()).toBe(402);
      await buildInvoices(now); // the trial ended without a card: paused
      expect((await api('GET', '/subscription/current')).body.data).toMatchObject({ status: 'paused', hasPaymentMethod: false });
      expect(await ask()).toBe(402);

      const planId = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data.find((plan: { slug: string }) => plan.slug === 'growth').id;
      const { sessionId } = (await api('POST', '/subscription/create-checkout-session', { planId })).body.data;
      const from = fake.events.length;
      fake.completeCheckout(sessionId, 'pm_card_visa');
      for (const event of fake.events.slice(from)) expect(await fake.redeliver(event.id, `${spendgate.url}/api/subscription/webhook`)).toBe(200);
      await spendgate.app.runtime.stores.queue.drain();

      expect(await ask()).toBe(200);
      expect((await api('GET', '/subscription/current')).body.data).toMatchObject({ status: 'active', hasPaymentMethod: true });
    });

    it('refuses the very next request once invoice-build ends a subscription cancelled at its period end', async () => {
      const cancelled = await api('POST', '/subscription/cancel', { immediate: false });
      expect(cancelled.body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
      expect(await ask()).toBe(200); // cached as active

      now = new Date(new Date(cancelled.body.data.currentPeriodEnd).getTime() + 2 * HOUR_MS);
      await buildInvoices(now);
      expect((await api('GET', '/subscription/current')).body.data).toMatchObject({ status: 'canceled' });
      expect(await ask()).toBe(402);
    });
  });
}
