/**
 * `npm run bench:invoices [-- --events N --subscriptions S --late L --mode embedded|scaled]`:
 * what building and proving invoices costs at size. Starts a Spendgate (not listening), makes S
 * accounts on Growth, each paying for one team, billing since two periods ago, then
 *  1. seed — N usage events in the first period (the tests' builder, usageEvent), spread
 *     over the teams (optimised uplift at varying amounts, optimised minimum fees, BYOM
 *     routing fees and BYOK requests, which are not charged), through the meter's own
 *     statement (insertUsageEvents);
 *  2. build — invoice-build invoices every subscription's first period (reported: seconds,
 *     events counted per second);
 *  3. late — L more events of the first period reach the database after its invoices;
 *  4. build — the second period's invoices, with the late usage on adjustment lines;
 *  5. proof — invoice-proof recounts every invoice (both periods, adjustments included)
 *     and counts late usage still to bill (reported: seconds, events recounted per second).
 * Every line is checked: the proof must find no mismatch. scaled: PostgreSQL + Redis from
 * DATABASE_URL / REDIS_URL (a database of its own is created there and dropped after).
 * Prints the figures; JSON to bench/results/.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { periodEndAfter } from '@spendgate/core';
import { findSubscription, insertTeam, insertUsageEvents, insertUser, type NewUsageEvent, startBillingPeriod, upsertSubscription } from '@spendgate/store';
import { usageEvent } from '@spendgate/store/testing';
import { createInvoiceBuildProcessor, createInvoiceProofProcessor } from '@spendgate/worker';
import { sql } from 'kysely';
import { startReadSideServer } from './src/read-side-server.ts';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    subscriptions: { type: 'string', default: '200' },
    late: { type: 'string', default: '10000' },
    mode: { type: 'string', default: 'embedded' },
  },
});
const EVENTS = Number(flags.events);
const SUBSCRIPTIONS = Number(flags.subscriptions);
const LATE = Number(flags.late);
const MODE = flags.mode === 'scaled' ? 'scaled' : 'embedded';
const BATCH = 1_000;
const WRITERS = 4;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const server = await startReadSideServer(MODE);
const { app } = server;
const { stores } = app.runtime;
const { db } = stores.sql;

/** Runs `work` and answers how long it took, in seconds. */
async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** Writes events through the meter's statement, WRITERS batches at a time. */
async function ingest(count: number, eventAt: (index: number) => NewUsageEvent): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < count) {
        const first = next;
        next += BATCH;
        const batch: NewUsageEvent[] = [];
        for (let index = first; index < Math.min(first + BATCH, count); index += 1) batch.push(eventAt(index));
        await insertUsageEvents(db, batch);
      }
    }),
  );
}

try {
  // Two whole periods that ended over an hour ago: the first is billed with usage, the second carries its late usage.
  const anchor = new Date(Math.floor((Date.now() - 70 * DAY_MS) / DAY_MS) * DAY_MS);
  const second = periodEndAfter(anchor, anchor);
  const third = periodEndAfter(anchor, second);
  const teams: string[] = [];
  for (let index = 0; index < SUBSCRIPTIONS; index += 1) {
    const userId = randomUUID();
    const teamId = randomUUID();
    await insertUser(db, { id: userId, email: `bench-invoices-${index}-${userId.slice(0, 8)}@example.com`, name: 'Bench', passwordHash: 'x' });
    await upsertSubscription(db, { userId, planSlug: 'growth', status: 'active', trialEnd: null, at: anchor });
    await startBillingPeriod(db, { subscriptionId: (await findSubscription(db, userId))!.id, anchor, start: anchor, end: second });
    await insertTeam(db, { id: teamId, name: `Bench ${index}`, description: '', createdBy: userId });
    teams.push(teamId);
  }

  const periodMs = second.getTime() - anchor.getTime();
  const RULES = [
    ['optimised-uplift', 'optimised', null],
    ['optimised-minimum-fee', 'optimised', 1_800],
    ['byom-routing-fee', 'byom', 4_000],
    ['byok-provider-direct', 'byok', 0],
  ] as const;
  const eventAt =
    (prefix: string, count: number) =>
    (index: number): NewUsageEvent => {
      const [rule, keyKind, fee] = RULES[index % RULES.length]!;
      const owner = { teamId: teams[Math.floor(index / RULES.length) % teams.length]!, groupId: null, keyId: null };
      return usageEvent(owner, new Date(anchor.getTime() + Math.floor((index / count) * (periodMs - 1))), {
        request_id: `${prefix}-${index}`,
        input_tokens: BigInt(500 + (index % 1_000)),
        output_tokens: 200n,
        cost_micros: BigInt(1_000 + (index % 997)),
        latency_ms: 300,
        key_kind: keyKind,
        billing_rule: rule,
        billed_micros: BigInt(fee ?? 1_250 + (index % 997)),
        budget_spend_micros: BigInt(fee ?? 1_250 + (index % 997)),
      });
    };

  const seedSeconds = await timed(() => ingest(EVENTS, eventAt('bench-invoice', EVENTS)));
  await sql`analyze usage_events`.execute(db);

  const proofSummaries: { invoices: number; mismatched: number; pendingLateRequests: string }[] = [];
  const jobLog = { info: (details: unknown) => void proofSummaries.push(details as (typeof proofSummaries)[number]), error: (details: unknown) => console.error(details) };
  const build = (at: Date) => createInvoiceBuildProcessor({ sql: stores.sql, log: { info: () => {} }, invalidateKey: stores.invalidateKey, usageEventRetentionDays: 400, now: () => at })();
  const prove = (at: Date) => createInvoiceProofProcessor({ sql: stores.sql, log: jobLog, usageEventRetentionDays: 400, now: () => at })();

  const firstBuildSeconds = await timed(() => build(new Date(second.getTime() + 2 * HOUR_MS)));
  await ingest(LATE, eventAt('bench-late', LATE));
  const secondBuildSeconds = await timed(() => build(new Date(third.getTime() + 2 * HOUR_MS)));
  const proofSeconds = await timed(() => prove(new Date()));

  const invoices = await db.selectFrom('invoices').select((eb) => [eb.fn.countAll<string>().as('invoices'), eb.fn.sum<string>('total_pence').as('pence')]).executeTakeFirstOrThrow();
  const adjustments = await db.selectFrom('invoice_lines').select((eb) => eb.fn.countAll<string>().as('lines')).where('adjusts_invoice_id', 'is not', null).executeTakeFirstOrThrow();
  const summary = proofSummaries.at(-1)!;
  if (summary.mismatched !== 0 || Number(invoices.invoices) !== 2 * SUBSCRIPTIONS) throw new Error(`the proof found ${summary.mismatched} mismatched of ${invoices.invoices} invoices`);

  const figures = {
    mode: MODE,
    events: EVENTS,
    subscriptions: SUBSCRIPTIONS,
    lateEvents: LATE,
    seedEventsPerSecond: EVENTS / seedSeconds,
    firstBuild: { seconds: firstBuildSeconds, eventsPerSecond: EVENTS / firstBuildSeconds },
    secondBuild: { seconds: secondBuildSeconds, adjustmentLines: Number(adjustments.lines) },
    proof: { seconds: proofSeconds, eventsPerSecond: (EVENTS + LATE) / proofSeconds, invoices: summary.invoices, mismatched: summary.mismatched },
    invoicedPence: invoices.pence,
  };
  console.log(`\nInvoice bench — ${MODE}, ${EVENTS.toLocaleString('en-GB')} events for ${SUBSCRIPTIONS} subscriptions (one team each), ${LATE.toLocaleString('en-GB')} late`);
  console.log(`seed (events + rollups): ${Math.round(figures.seedEventsPerSecond).toLocaleString('en-GB')} events/s`);
  console.log(`build, first period:     ${firstBuildSeconds.toFixed(1)} s, ${Math.round(figures.firstBuild.eventsPerSecond).toLocaleString('en-GB')} events/s counted`);
  console.log(`build, second period:    ${secondBuildSeconds.toFixed(1)} s (${figures.secondBuild.adjustmentLines} adjustment lines of late usage)`);
  console.log(`proof, ${summary.invoices} invoices:     ${proofSeconds.toFixed(1)} s, ${Math.round(figures.proof.eventsPerSecond).toLocaleString('en-GB')} events/s recounted, ${summary.mismatched} mismatched`);
  const resultsDir = path.join(import.meta.dirname, 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `invoices-${new Date().toISOString().replace(/[:.]/g, '-')}-${MODE}-${EVENTS}.json`);
  await writeFile(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`\nResults: ${path.relative(process.cwd(), file)}`);
} finally {
  await server.close();
}
