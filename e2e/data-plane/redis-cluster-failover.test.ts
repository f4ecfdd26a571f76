/**
 * A Redis Cluster master and a worker killed mid-load (scaled mode, two gateways, two
 * workers — the test's own and one in a process of its own —, on a 3-master, 3-replica
 * cluster of the test's own with a 2 s node timeout): the master's replica takes over,
 * the other worker finds the killed one's jobs again (BullMQ's stalled jobs), and then
 *   - no usage event is lost and none is doubled: exactly the requests answered 200
 *     reached the provider, and each has one usage event;
 *   - the hard cap holds: the spend admitted stays within the cap plus one request's
 *     worst case (the 1,665 micro-GBP reservation of budget-concurrency.test.ts);
 *   - every answer is a 200, a 402 once the cap is reached, or a 503 budget_unavailable
 *     while the slot's master is away, and the gateways serve again after the failover.
 * The worker process is killed outright (SIGKILL) once the load has begun; then the
 * master serving the team's budget counters (the ledger), and once its replica has taken
 * over, the master serving the usage queue's slot too when it is another one. Then the
 * killed nodes are started again and rejoin as replicas, and the Spendgate closes in
 * bounded time (its idle workers' blocking connections lost their master).
 */
import { type RunningRedisCluster, startRedisCluster } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type GatewayProcess, type PeerProcess, startGatewayProcess, startWorkerProcess } from '../support/gateway-process.ts';
import { redisServerAvailable } from '../support/private-redis.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const runs = testModes.includes('scaled') && redisServerAvailable;

const CAP_MICRO_GBP = 150_000;
const WORST_CASE_MICRO_GBP = 1_665;
const CONCURRENCY = 8;
/** How long closing the Spendgate may take: its workers wait 3 s at most once idle (bull-queue.ts). */
const CLOSE_WITHIN_MS = 10_000;
/** Requests answered before the first kill, and after the last failover, before the load stops. */
const REQUESTS_BEFORE_KILL = 40;
const REQUESTS_AFTER_FAILOVER = 200;
const REQUEST_BODY = JSON.stringify({ model: 'gpt-4o', max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] });

interface Answer {
  status: number;
  code: string | undefined;
  requestId: string | null;
}

describe.skipIf(!runs)('a Redis Cluster master killed under load (scaled, two gateways)', () => {
  let cluster: RunningRedisCluster;
  let fake: FakeOpenAI;
  let spendgate: RunningSpendgate;
  let secondGateway: GatewayProcess;
  let workerProcess: PeerProcess;
  let tenant: Tenant;
  let apiKey: string;
  let keyId: string;

  beforeAll(async () => {
    cluster = await startRedisCluster({ nodeTimeoutMs: 2_000 });
    fake = await startFakeOpenAI();
    fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 8, completion_tokens: 120 });
    spendgate = await startSpendgate('scaled', 'redis-cluster-failover', { redisUrl: cluster.url });
    secondGateway = await startGatewayProcess(spendgate.peer!);
    workerProcess = await startWorkerProcess(spendgate.peer!);
    tenant = await signUpTeam(spendgate.url, 'cluster-failover@example.com');
    const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
      token: tenant.token,
      body: { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
      token: tenant.token,
      body: { name: 'failover', kind: 'byok', connectionId: connection.body.data.newConnection.id },
    });
    apiKey = key.body.data.key;
    keyId = key.body.data.providerKey.id;
    const budget = await callApi(spendgate.url, 'POST', '/budgets', {
      token: tenant.token,
      body: { scope: 'key', scopeId: keyId, amount: (CAP_MICRO_GBP / 1_000_000).toFixed(6), window: 'total', mode: 'hard' },
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
  }, 90_000);

  /** The test closes them itself, to time the Spendgate's close. */
  let closed = false;

  afterAll(async () => {
    await workerProcess?.stop();
    if (!closed) {
      await secondGateway?.stop();
      await spendgate?.close();
    }
    await fake?.close();
    await cluster?.stop();
  }, 60_000);

  async function send(gatewayUrl: string): Promise<Answer> {
    const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: REQUEST_BODY,
    });
    const body = (await response.json()) as { error?: { code?: string } };
    return { status: response.status, code: body.error?.code, requestId: response.headers.get('x-spendgate-request-id') };
  }

  const killed: number[] = [];

  /** Kills the master serving `key`'s slot and resolves once its replica serves it. */
  async function failOver(key: string): Promise<void> {
    const master = await cluster.masterOf(key);
    const replica = (await cluster.nodes()).find(({ masterPort }) => masterPort === master.port)!;
    await cluster.kill(master.port);
    killed.push(master.port);
    await expect
      .poll(async () => (await cluster.nodes(replica.port)).find(({ port }) => port === replica.port)?.role, { timeout: 30_000, interval: 200 })
      .toBe('master');
  }

  it('loses no usage event, doubles none, and keeps the hard cap within one worst-case request', async () => {
    const answers: Answer[] = [];
    let answeredAfterFailover: number | undefined;
    const gateways = [spendgate.url, secondGateway.url];
    const load = Array.from({ length: CONCURRENCY }, async (_, lane) => {
      while (answeredAfterFailover === undefined || answers.length < answeredAfterFailover + REQUESTS_AFTER_FAILOVER) {
        answers.push(await send(gateways[lane % gateways.length]!));
      }
    });
    const killing = (async () => {
      try {
        await expect.poll(() => answers.length, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(REQUESTS_BEFORE_KILL);
        await workerProcess.kill();
        const ledgerSlot = `{${tenant.teamId}}`;
        const queueSlot = `{${spendgate.peer!.redisPrefix}-queue}`;
        const ledgerMaster = await cluster.masterOf(ledgerSlot);
        const queueMaster = await cluster.masterOf(queueSlot);
        await failOver(ledgerSlot);
        if (queueMaster.port !== ledgerMaster.port) await failOver(queueSlot);
      } finally {
        // The load goes on for REQUESTS_AFTER_FAILOVER more (and stops even when the failover failed).
        answeredAfterFailover = answers.length;
      }
    })();
    await Promise.all([killing, ...load]);

    const served = answers.filter(({ status }) => status === 200);
    const unexpected = answers.filter(
      ({ status, code }) => !(status === 200 || (status === 402 && code === 'budget_exceeded') || (status === 503 && code === 'budget_unavailable')),
    );
    expect(unexpected, 'answers other than 200, 402 budget_exceeded and 503 budget_unavailable').toEqual([]);
    expect(answers.filter(({ status }) => status === 402).length, 'refused once the cap was reached').toBeGreaterThan(0);
    expect(answers.slice(-REQUESTS_AFTER_FAILOVER).some(({ status }) => status !== 503), 'answered after the failover').toBe(true);

    expect(fake.requests.length, 'requests that reached the provider').toBe(served.length);
    const events = await recordedEvents(spendgate, tenant.teamId, served.length);
    expect(events.map((event) => event.request_id).sort(), 'one usage event per request served').toEqual(served.map(({ requestId }) => requestId).sort());
    const admittedSpend = events.reduce((sum, event) => sum + Number(event.budget_spend_micros ?? 0), 0);
    expect(admittedSpend, `spend of ${served.length} requests`).toBeLessThanOrEqual(CAP_MICRO_GBP + WORST_CASE_MICRO_GBP);
    // The killed nodes come back, as their supervisor would start them, and rejoin as replicas.
    for (const port of killed) await cluster.restart(port);
    await expect
      .poll(async () => (await cluster.nodes()).filter(({ port }) => killed.includes(port)).map(({ role }) => role), { timeout: 30_000, interval: 200 })
      .toEqual(killed.map(() => 'replica'));

    await secondGateway.stop();
    const closeStarted = performance.now();
    await spendgate.close();
    closed = true;
    const closeMs = Math.round(performance.now() - closeStarted);
    expect(closeMs, 'ms to close the Spendgate after the failovers').toBeLessThan(CLOSE_WITHIN_MS);
    process.stdout.write(
      `redis cluster failover: ${answers.length} answers, ${served.length} served, ${answers.filter(({ status }) => status === 503).length} 503 while failing over, ` +
        `${answers.filter(({ status }) => status === 402).length} 402; spend ${admittedSpend} of a ${CAP_MICRO_GBP} cap; closed in ${closeMs} ms\n`,
    );
  }, 120_000);
});
