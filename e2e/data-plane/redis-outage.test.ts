/**
 * Redis stopped mid-load (scaled mode, on a Redis of the test's own): requests on a
 * hard-capped key are refused with 503 at once while it is away, requests on an uncapped
 * key and on a key with a soft budget keep being served, nothing hangs, and once Redis is
 * back every request that reached the provider has exactly one usage event — those
 * served during the outage waited in the usage outbox — and the soft budget's counter
 * includes, once, the spend of the requests it let through unreserved. Then the ledger's
 * counters are deleted from Redis and rebuilt from the usage events in PostgreSQL before
 * anything is admitted on them.
 */
import { listUsageEvents } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type PrivateRedis, redisServerAvailable, startPrivateRedis } from '../support/private-redis.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { signUpTeam, type Tenant } from './tenant.ts';

const runs = testModes.includes('scaled') && redisServerAvailable;

type KeyName = 'capped' | 'uncapped' | 'soft';

interface Sent {
  key: KeyName;
  status: number;
  code: string | undefined;
  ms: number;
  phase: 'before' | 'outage' | 'after';
}

describe.skipIf(!runs)('Redis outage under load (scaled)', () => {
  let redis: PrivateRedis;
  let spendgate: RunningSpendgate;
  let fake: FakeOpenAI;
  let tenant: Tenant;
  const keys = { capped: '', uncapped: '', soft: '' };
  const keyIds = { capped: '', uncapped: '', soft: '' };
  let cappedKeyId = '';

  beforeAll(async () => {
    redis = await startPrivateRedis();
    fake = await startFakeOpenAI();
    fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200 });
    spendgate = await startSpendgate('scaled', 'redis-outage', { env: { REDIS_URL: redis.url } });
    tenant = await signUpTeam(spendgate.url, 'outage@example.com');
    const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
      token: tenant.token,
      body: { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
    });
    for (const name of ['capped', 'uncapped', 'soft'] as const) {
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name, kind: 'byok', connectionId: connection.body.data.newConnection.id },
      });
      keys[name] = key.body.data.key;
      keyIds[name] = key.body.data.providerKey.id;
    }
    cappedKeyId = keyIds.capped;
    for (const [scopeId, mode] of [
      [cappedKeyId, 'hard'],
      [keyIds.soft, 'soft'],
    ]) {
      const budget = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'key', scopeId, amount: '1000', window: 'month', mode },
      });
      expect(budget.status).toBe(201);
    }
  }, 60_000);

  afterAll(async () => {
    await spendgate?.close();
    await fake?.close();
    await redis?.close();
  });

  async function send(key: KeyName, phase: Sent['phase']): Promise<Sent> {
    const startedAt = performance.now();
    const response = await fetch(`${spendgate.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[key]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 300 }),
    });
    const body = (await response.json()) as { error?: { code?: string } };
    return { key, status: response.status, code: body.error?.code, ms: performance.now() - startedAt, phase };
  }

  /** Two request loops per capped or uncapped key, one for the soft one, until `stop()` says so. */
  function load(phase: () => Sent['phase']) {
    const sent: Sent[] = [];
    let running = true;
    const loop = async (key: KeyName) => {
      while (running) sent.push(await send(key, phase()));
    };
    const loops = [loop('capped'), loop('capped'), loop('uncapped'), loop('uncapped'), loop('soft')];
    return {
      sent,
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  it('refuses hard-capped keys fast, serves the others, and loses no usage event', async () => {
    let phase: Sent['phase'] = 'before';
    const traffic = load(() => phase);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    phase = 'outage';
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await redis.restart();
    phase = 'after';
    // Until the gateway has reconnected, capped keys are still refused; then all is served again.
    await expect
      .poll(async () => (await send('capped', 'after')).status, { timeout: 15_000, interval: 100 })
      .toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await traffic.stop();
    const stoppedAt = performance.now();

    const { sent } = traffic;
    const during = sent.filter((request) => request.phase === 'outage');
    const slowest = Math.max(...during.map((request) => request.ms));
    const statuses: Record<string, number> = {};
    for (const request of sent) statuses[`${request.phase} ${request.key} ${request.status}`] = (statuses[`${request.phase} ${request.key} ${request.status}`] ?? 0) + 1;
    console.info(`redis outage: ${sent.length} requests, slowest during the outage ${slowest.toFixed(0)} ms; ${JSON.stringify(statuses)}`);
    expect(slowest).toBeLessThan(500);
    for (const key of ['uncapped', 'soft'] as const) {
      expect(during.filter((request) => request.key === key).length, key).toBeGreaterThan(0);
      expect(during.filter((request) => request.key === key).every((request) => request.status === 200), key).toBe(true);
    }
    const refusedCapped = during.filter((request) => request.key === 'capped' && request.status !== 200);
    expect(refusedCapped.length).toBeGreaterThan(0);
    expect(refusedCapped.every((request) => request.status === 503 && request.code === 'budget_unavailable')).toBe(true);
    expect(sent.every((request) => request.status === 200 || request.status === 503)).toBe(true);

    // Every request that reached the provider is recorded once: the outage's from the outbox.
    const { sql } = spendgate.app.runtime.stores;
    const reached = fake.requests.length;
    await expect.poll(async () => (await listUsageEvents(sql.db, tenant.teamId)).length, { timeout: 30_000, interval: 200 }).toBe(reached);
    console.info(`all events recorded after ${(performance.now() - stoppedAt).toFixed(0)} ms`);
    const events = await listUsageEvents(sql.db, tenant.teamId);
    expect(new Set(events.map((event) => event.request_id)).size).toBe(reached);
    expect(await sql.db.selectFrom('usage_outbox').select('request_id').execute()).toEqual([]);

    // Each budget counted exactly what its key's recorded events say it spent: the soft
    // one also the requests it let through unreserved during the outage (their spend,
    // kept by the gateway while Redis was away, reaches the counter once it is back).
    const spentBy = (name: 'capped' | 'soft') => events.filter((event) => event.key_id === keyIds[name]).reduce((sum, event) => sum + BigInt(event.budget_spend_micros ?? 0), 0n);
    const budgetSpent = async (name: 'capped' | 'soft') =>
      (await callApi(spendgate.url, 'GET', `/budgets?scope=key&scopeId=${keyIds[name]}`, { token: tenant.token })).body.data[0].spent;
    expect(await budgetSpent('capped')).toBe((Number(spentBy('capped')) / 1e6).toFixed(6));
    await expect.poll(() => budgetSpent('soft'), { timeout: 5_000, interval: 100 }).toBe((Number(spentBy('soft')) / 1e6).toFixed(6));
    // And it stays there: nothing is counted twice.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await budgetSpent('soft')).toBe((Number(spentBy('soft')) / 1e6).toFixed(6));
  }, 90_000);

  it('rebuilds counters Redis lost from PostgreSQL before admitting again', async () => {
    const { sql } = spendgate.app.runtime.stores;
    const events = await listUsageEvents(sql.db, tenant.teamId);
    const recordedSpend = events.filter((event) => event.key_id === cappedKeyId).reduce((sum, event) => sum + BigInt(event.budget_spend_micros ?? 0), 0n);
    expect(recordedSpend).toBeGreaterThan(0n);

    // Redis loses every counter (a restart without persistence would do the same).
    const admin = await import('ioredis').then(({ Redis }) => new Redis(redis.url));
    await admin.flushall();
    admin.disconnect();

    const budgets = await callApi(spendgate.url, 'GET', `/budgets?scope=key&scopeId=${cappedKeyId}`, { token: tenant.token });
    const [budget] = budgets.body.data;
    expect(budget.spent).toBe((Number(recordedSpend) / 1e6).toFixed(6));

    // A cap £0.0001 above what is recorded: not even a 16-token answer of gpt-4o fits in it (the
    // prompt and 16 × $10/M come to ~£0.00014), so the next request is refused; counted from 0, it would pass.
    const update = await callApi(spendgate.url, 'PATCH', `/budgets/${budget.id}?teamId=${tenant.teamId}`, {
      token: tenant.token,
      body: { amount: ((Number(recordedSpend) + 100) / 1e6).toFixed(6) },
    });
    expect(update.status).toBe(200);
    const refused = await send('capped', 'after');
    expect(refused.status).toBe(402);
  }, 60_000);
});
