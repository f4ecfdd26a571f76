/**
 * Demo teams: a team marked as demo (teams.is_demo, so its spend never mixes with real
 * spend or bills), owned by the caller, with three groups, two keys each and 90 days of
 * usage shaped by a real workload (workload.ts). The usage goes the real meter path: each
 * request is priced by core's priceRequest at the catalog's prices as the gateway prices
 * one, never charged (core's chargedBill), and handed to the `meter` job in batches, which
 * records it and its rollups.
 * The keys are Spendgate-managed (optimised) keys whose plaintext nobody ever saw.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { chargedBill, ConflictError, type PriceCatalog, planTerms, priceRequest, type Usage } from '@spendgate/core';
import {
  findUserByEmail,
  insertGroup,
  insertIssuedKey,
  insertTeam,
  insertUser,
  type JobPayloads,
  type JobQueue,
  type SqlStore,
  type UsageEventJob,
} from '@spendgate/store';
import { generateIssuedKey } from '../../security/issued-keys.ts';
import { hashPassword } from '../../security/passwords.ts';
import { azureTrace, demoDay, pick, requestsOnDay, seededRandom } from './workload.ts';

const DAY_MS = 86_400_000;
const DEMO_DAYS = 90;
const METER_BATCH = 1_000;
const ALREADY_HAVE_ONE = 'You already have a demo team';
const UNIQUE_VIOLATION = '23505';
const DEMO_EMAIL = 'demo@example.com';

interface DemoGroup {
  name: string;
  description: string;
  share: number;
  models: { weight: number; value: { provider: string; model: string } }[];
}

/** Who uses what in the demo team: a support bot on small models, search on mid-size ones, internal tools on the largest. */
const GROUPS: DemoGroup[] = [
  {
    name: 'Customer support',
    description: 'The support assistant answering customers (sample data)',
    share: 5,
    models: [
      { weight: 6, value: { provider: 'openai', model: 'gpt-4o-mini' } },
      { weight: 3, value: { provider: 'anthropic', model: 'claude-haiku-4-5' } },
      { weight: 1, value: { provider: 'google', model: 'gemini-2.5-flash' } },
    ],
  },
  {
    name: 'Search & RAG',
    description: 'Answers over the product documentation (sample data)',
    share: 3,
    models: [
      { weight: 5, value: { provider: 'openai', model: 'gpt-4.1-mini' } },
      { weight: 3, value: { provider: 'google', model: 'gemini-2.5-flash' } },
      { weight: 2, value: { provider: 'openai', model: 'gpt-4o' } },
    ],
  },
  {
    name: 'Internal tools',
    description: 'Engineering and analytics assistants (sample data)',
    share: 2,
    models: [
      { weight: 5, value: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
      { weight: 3, value: { provider: 'openai', model: 'gpt-4o' } },
      { weight: 2, value: { provider: 'google', model: 'gemini-2.5-pro' } },
    ],
  },
];
const KEYS = [
  { name: 'production', weight: 85 },
  { name: 'staging', weight: 15 },
];

export interface DemoTeam {
  teamId: string;
  name: string;
  days: number;
  /** Requests handed to the meter; the dashboard shows them once it has recorded them. */
  requests: number;
}

export function createDemoService(deps: { sql: SqlStore; queue: JobQueue<JobPayloads>; catalog: PriceCatalog; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  /** The usage of one trace request, with prompt caching on long prompts of models that offer it. */
  function usageOf(promptTokens: number, outputTokens: number, provider: string, random: () => number): Usage {
    const cached = provider !== 'google' && promptTokens > 1_024 && random() < 0.4 ? Math.floor(promptTokens * 0.6) : 0;
    return { inputTokens: promptTokens - cached, cachedReadTokens: cached, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens, reasoningTokens: 0 };
  }

  const service = {
    /**
     * `npm run demo`'s account: demo@example.com, verified, with a new random password each
     * time (printed by the caller; only its hash is kept), and its demo team, made once.
     */
    async demoAccount(): Promise<{ email: string; password: string; teamId: string; requests: number | undefined }> {
      const { db } = deps.sql;
      const password = randomBytes(15).toString('base64url');
      const passwordHash = await hashPassword(password);
      const user =
        (await findUserByEmail(db, DEMO_EMAIL)) ?? (await insertUser(db, { id: randomUUID(), email: DEMO_EMAIL, name: 'Demo user', passwordHash }));
      await db.updateTable('users').set({ password_hash: passwordHash, email_verified_at: user.email_verified_at ?? now() }).where('id', '=', user.id).execute();
      const team = await db.selectFrom('teams').select('id').where('created_by', '=', user.id).where('is_demo', '=', true).executeTakeFirst();
      if (team) return { email: DEMO_EMAIL, password, teamId: team.id, requests: undefined };
      const made = await service.createDemoTeam(user.id);
      return { email: DEMO_EMAIL, password, teamId: made.teamId, requests: made.requests };
    },

    /** Creates a demo team for `userId` and hands its 90 days of usage to the meter. */
    async createDemoTeam(userId: string): Promise<DemoTeam> {
      const { db } = deps.sql;
      const teamId = randomUUID();
      const name = 'Demo team (sample data)';
      const groups = await db.transaction().execute(async (trx) => {
        // One per user: a unique index on demo teams' creator settles two at once.
        const existing = await trx.selectFrom('teams').select('id').where('created_by', '=', userId).where('is_demo', '=', true).executeTakeFirst();
        if (existing) throw new ConflictError(ALREADY_HAVE_ONE);
        await insertTeam(trx, { id: teamId, name, description: '90 days of sample usage, never billed', createdBy: userId });
        await trx.updateTable('teams').set({ is_demo: true }).where('id', '=', teamId).execute();
        const made = [];
        for (const group of GROUPS) {
          const groupId = randomUUID();
          await insertGroup(trx, { id: groupId, teamId, name: group.name, description: group.description, createdBy: userId });
          const keys = [];
          for (const key of KEYS) {
            const keyId = randomUUID();
            const { hash, prefix } = generateIssuedKey();
            await insertIssuedKey(trx, { id: keyId, team_id: teamId, group_id: groupId, connection_id: null, kind: 'optimised', name: key.name, key_hash: hash, key_prefix: prefix, created_by: userId });
            keys.push({ weight: key.weight, value: keyId });
          }
          made.push({ weight: group.share, value: { groupId, keys, models: group.models } });
        }
        return made;
      }).catch((error: unknown) => {
        throw (error as { code?: string }).code === UNIQUE_VIOLATION ? new ConflictError(ALREADY_HAVE_ONE) : error;
      });

      const random = seededRandom(0x5eed);
      const plan = planTerms('growth');
      const today = Math.floor(now().getTime() / DAY_MS) * DAY_MS;
      const requests = azureTrace();
      let cursor = 0;
      let batch: UsageEventJob[] = [];
      let sent = 0;
      let batches = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await deps.queue.enqueue('meter', { events: batch }, { jobId: `demo-${teamId}-${batches}` });
        batches += 1;
        sent += batch.length;
        batch = [];
      };
      for (let index = 0; index < DEMO_DAYS; index += 1) {
        // A day at a time, so making the sample holds no other request for long.
        await yieldToEventLoop();
        const dayStart = new Date(today - (DEMO_DAYS - 1 - index) * DAY_MS);
        const day = demoDay(requests, cursor, dayStart, requestsOnDay(index, DEMO_DAYS, dayStart), random);
        cursor = day.cursor;
        for (const request of day.requests) {
          if (request.occurredAt > now()) break;
          const group = pick(random, groups);
          const { provider, model } = pick(random, group.models);
          const failed = random() < 0.012;
          const usage = failed ? usageOf(0, 0, provider, random) : usageOf(request.promptTokens, request.outputTokens, provider, random);
          const priced = priceRequest(deps.catalog, { kind: 'optimised', plan, provider, model, usage, at: request.occurredAt });
          const { cost, budgetSpendMicros } = priced;
          const bill = chargedBill({ isDemo: true }, priced.bill);
          batch.push({
            requestId: `demo-${teamId}-${sent + batch.length}`,
            occurredAt: request.occurredAt.toISOString(),
            teamId,
            groupId: group.groupId,
            keyId: pick(random, group.keys),
            connectionId: null,
            provider,
            model,
            endpoint: 'chat.completions',
            statusCode: failed ? 429 : 200,
            streamed: random() < 0.5,
            estimated: !failed && random() < 0.004,
            usage,
            costMicros: cost.status === 'priced' ? cost.totalMicros.toString() : null,
            currency: 'USD',
            priceVersion: cost.status === 'priced' ? cost.priceVersion : null,
            latencyMs: failed ? 40 + Math.floor(random() * 60) : Math.round(250 + usage.outputTokens * 9 + request.promptTokens * 0.05 + random() * 400),
            keyKind: 'optimised',
            billedMicros: bill.billedMicros === null ? null : bill.billedMicros.toString(),
            billingRule: bill.rule,
            fxRatePpm: bill.fxRatePpm.toString(),
            budgetSpendMicros: budgetSpendMicros.toString(),
            route: 'requested',
          });
          if (batch.length === METER_BATCH) await flush();
        }
      }
      await flush();
      return { teamId, name, days: DEMO_DAYS, requests: sent };
    },
  };
  return service;
}

export type DemoService = ReturnType<typeof createDemoService>;
