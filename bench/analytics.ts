/**
 * `npm run bench:analytics [-- --events N --mode embedded|scaled --calls C]`: what the
 * read side costs at size. Starts a whole Spendgate (its API on a loopback port), signs a
 * team up through the API, then
 *  1. ingest — writes N usage events spread over the last 30 days (request sizes from the
 *     Azure trace, 5 groups × 4 keys × 6 models, the OpenAI and Anthropic ones through a
 *     connection each) through the meter's own statement
 *     (insertUsageEvents: the events and their hourly and daily rollups), 4 writers of
 *     1,000-event batches, and reports events per second;
 *  2. reads — calls each usage call over the 30 days C times over HTTP, one at a time (the
 *     older calls — a group's, a connection's, the connection list's and the overview's
 *     month — and the export's file by day too), and reports p50 / p95 / max in ms.
 * scaled: PostgreSQL + Redis from DATABASE_URL / REDIS_URL (a database of its own is
 * created in that PostgreSQL and dropped after). Prints one table; JSON to bench/results/.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { insertUsageEvents, listOutboxMail, type NewUsageEvent, upsertSubscription } from '@spendgate/store';
import { usageEvent } from '@spendgate/store/testing';
import { sql } from 'kysely';
import { azureTrace } from '../worker/src/demo/workload.ts';
import { startReadSideServer } from './src/read-side-server.ts';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    mode: { type: 'string', default: 'embedded' },
    calls: { type: 'string', default: '100' },
  },
});
const EVENTS = Number(flags.events);
const CALLS = Number(flags.calls);
const MODE = flags.mode === 'scaled' ? 'scaled' : 'embedded';
const BATCH = 1_000;
const WRITERS = 4;
const DAY_MS = 86_400_000;

const server = await startReadSideServer(MODE);
const { app } = server;
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const db = app.runtime.stores.sql.db;

/** A file download (the export): the whole body read, as a client saving it would. */
async function download(route: string, token: string): Promise<void> {
  const response = await fetch(`${base}/api${route}`, { headers: { authorization: `Bearer ${token}` } });
  await response.text();
  if (!response.ok) throw new Error(`GET ${route}: ${response.status}`);
}

async function api<T>(method: string, route: string, token?: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}/api${route}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as { success: boolean; data: T; message: string };
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${answer.message}`);
  return answer.data;
}

try {
  // A team through the API: register, confirm the mailed code, team, groups; keys inserted.
  const email = `bench-analytics-${randomUUID().slice(0, 8)}@example.com`;
  const registered = await api<{ token: string; user: { id: string } }>('POST', '/auth/register', undefined, { email, password: 'a long bench passphrase', name: 'Bench' });
  let code: string | undefined;
  for (let tries = 0; code === undefined && tries < 100; tries += 1) {
    code = /\b(\d{6})\b/.exec((await listOutboxMail(db, email)).at(-1)?.text_body ?? '')?.[1];
    if (code === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { token } = await api<{ token: string }>('POST', '/auth/verify-email-otp', registered.token, { email, otp: code });
  // Growth: five groups, and a 90-day look-back that covers the 30 days read.
  await upsertSubscription(db, { userId: registered.user.id, planSlug: 'growth', status: 'active', trialEnd: null });
  const team = await api<{ id: string }>('POST', '/team/', token, { name: 'Bench analytics', description: '' });
  const groups: { id: string; keys: string[] }[] = [];
  for (let index = 0; index < 5; index += 1) {
    const group = await api<{ id: string }>('POST', '/synthetic-group', token, { name: `Group ${index}`, description: '', teamId: team.id });
    const keys = [];
    for (let key = 0; key < 4; key += 1) {
      const id = randomUUID();
      await db
        .insertInto('issued_keys')
        .values({ id, team_id: team.id, group_id: group.id, connection_id: null, kind: 'optimised', name: `key ${index}.${key}`, key_hash: `bench-${id}`, key_prefix: 'sg_live_bench', created_by: registered.user.id, settings: '{}' })
        .execute();
      keys.push(id);
    }
    groups.push({ id: group.id, keys });
  }

  // The team's own provider accounts: OpenAI and Anthropic requests go through them, Google's through Spendgate's.
  const connections: Record<string, string> = {};
  for (const provider of ['openai', 'anthropic']) {
    const created = await api<{ newConnection: { id: string } }>('POST', '/provider/connections', token, { teamId: team.id, provider, name: provider, apiKey: `sk-bench-${provider}` });
    connections[provider] = created.newConnection.id;
  }

  const models = [
    ['openai', 'gpt-4o'],
    ['openai', 'gpt-4o-mini'],
    ['openai', 'gpt-4.1-mini'],
    ['anthropic', 'claude-sonnet-4-5'],
    ['anthropic', 'claude-haiku-4-5'],
    ['google', 'gemini-2.5-flash'],
  ] as const;
  const trace = azureTrace();
  const start = Date.now() - 30 * DAY_MS;
  const eventAt = (index: number): NewUsageEvent => {
    const request = trace[index % trace.length]!;
    const group = groups[index % groups.length]!;
    const [provider, model] = models[index % models.length]!;
    return usageEvent({ teamId: team.id, groupId: group.id, keyId: group.keys[Math.floor(index / groups.length) % group.keys.length]! }, new Date(start + Math.floor((index / EVENTS) * 30 * DAY_MS)), {
      request_id: `bench-${index}`,
      connection_id: connections[provider] ?? null,
      provider,
      model,
      status_code: index % 97 === 0 ? 429 : 200,
      streamed: index % 2 === 0,
      input_tokens: BigInt(request.promptTokens),
      output_tokens: BigInt(request.outputTokens),
      cost_micros: BigInt(request.promptTokens * 3 + request.outputTokens * 12),
      latency_ms: 200 + request.outputTokens * 9,
      billed_micros: BigInt(request.promptTokens * 3),
      budget_spend_micros: BigInt(request.promptTokens * 3),
    });
  };

  const ingestStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < EVENTS) {
        const first = next;
        next += BATCH;
        const batch = [];
        for (let index = first; index < Math.min(first + BATCH, EVENTS); index += 1) batch.push(eventAt(index));
        await insertUsageEvents(db, batch);
      }
    }),
  );
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;
  // What autovacuum does soon after a bulk write: fresh statistics, so the planner reads the
  // request log from its (team, time) index instead of sorting a table it thinks is empty.
  await sql`analyze usage_events`.execute(db);

  const range = `startDate=${new Date(start + DAY_MS).toISOString().slice(0, 10)}`;
  const calls: [string, string][] = [
    ['totals', `/usage/group/specific?teamId=${team.id}&${range}`],
    ['daily series', `/usage/cost/group?teamId=${team.id}&${range}`],
    ['this vs last month', `/usage/cost/group/specific?teamId=${team.id}`],
    ['by model', `/usage/distribution/group?teamId=${team.id}&${range}&by=model`],
    ['by key', `/usage/distribution/group?teamId=${team.id}&${range}&by=key`],
    ['one group by key', `/usage/distribution/specific?groupId=${groups[0]!.id}&${range}`],
    ['request log page', `/usage/requests?teamId=${team.id}&${range}`],
    ['group (/usage/group)', `/usage/group?groupId=${groups[0]!.id}&${range}&endDate=${new Date().toISOString().slice(0, 10)}`],
    ['group usage', `/synthetic-group/${groups[0]!.id}/usage?${range}`],
    ['connection usage', `/provider/connections/${connections.openai}/usage?${range}`],
    ['connection list', `/provider/connections?teamId=${team.id}`],
    ['overview (month)', `/usage/team?teamId=${team.id}`],
    ['export by day', `/usage/export?teamId=${team.id}&${range}&granularity=day`],
  ];
  const reads = [];
  for (const [name, route] of calls) {
    const times: number[] = [];
    for (let call = 0; call < CALLS; call += 1) {
      const started = performance.now();
      if (route.startsWith('/usage/export')) await download(route, token);
      else await api('GET', route, token);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    reads.push({ name, p50: at(0.5), p95: at(0.95), max: times.at(-1)! });
  }

  const rollupCells = Number((await db.selectFrom('usage_rollups').select(db.fn.countAll().as('cells')).executeTakeFirstOrThrow()).cells);
  console.log(`\nAnalytics bench — ${MODE}, ${EVENTS.toLocaleString('en-GB')} events over 30 days, ${rollupCells.toLocaleString('en-GB')} rollup cells`);
  console.log(`ingest (events + rollups, ${WRITERS} writers × ${BATCH}-event batches): ${Math.round(EVENTS / ingestSeconds).toLocaleString('en-GB')} events/s (${ingestSeconds.toFixed(1)} s)`);
  console.log(`\n${'call'.padEnd(20)}  ${'p50 ms'.padStart(8)}  ${'p95 ms'.padStart(8)}  ${'max ms'.padStart(8)}   (${CALLS} calls each over HTTP, one at a time)`);
  for (const read of reads) console.log(`${read.name.padEnd(20)}  ${read.p50.toFixed(1).padStart(8)}  ${read.p95.toFixed(1).padStart(8)}  ${read.max.toFixed(1).padStart(8)}`);
  const resultsDir = path.join(import.meta.dirname, 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `analytics-${new Date().toISOString().replace(/[:.]/g, '-')}-${MODE}-${EVENTS}.json`);
  await writeFile(file, `${JSON.stringify({ mode: MODE, events: EVENTS, rollupCells, ingestEventsPerSecond: EVENTS / ingestSeconds, reads }, null, 2)}\n`);
  console.log(`\nResults: ${path.relative(process.cwd(), file)}`);
} finally {
  await server.close();
}
