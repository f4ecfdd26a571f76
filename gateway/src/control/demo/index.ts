/**
 * Demo teams: a team marked as demo (teams.is_demo, so its spend never mixes with real
 * spend and is never charged), owned by the caller, with three groups, two keys each and
 * 90 days of usage shaped by a real workload. Making one answers at once: the team, its
 * groups and keys and its fill are made in one transaction and the first day handed to
 * the `demo-fill` job, which records the usage in the background a day at a time through
 * the meter's own statement (worker/src/jobs/demo-fill.ts); the fill says how far it has
 * got. The keys are Spendgate-managed (optimised) keys whose plaintext nobody ever saw.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ConflictError } from '@spendgate/core';
import {
  type DemoFill,
  type Db,
  findDemoFill,
  findUserByEmail,
  insertDemoFill,
  insertGroup,
  insertIssuedKey,
  insertTeam,
  insertUser,
  type JobPayloads,
  type JobQueue,
  type SqlStore,
} from '@spendgate/store';
import { DEMO_DAYS, DEMO_GROUPS, DEMO_KEYS, demoFillJobId } from '@spendgate/worker';
import { generateIssuedKey } from '../../security/issued-keys.ts';
import { hashPassword } from '../../security/passwords.ts';

const ALREADY_HAVE_ONE = 'You already have a demo team';
const UNIQUE_VIOLATION = '23505';
const DEMO_EMAIL = 'demo@example.com';
const DEMO_TEAM_NAME = 'Demo team (sample data)';

/** How far a demo team's sample usage has been recorded. */
export interface DemoStatus {
  state: 'filling' | 'filled';
  days: number;
  daysFilled: number;
  /** Sample requests recorded so far. */
  requests: number;
}

export interface DemoTeam extends DemoStatus {
  teamId: string;
  name: string;
}

function statusOf(fill: DemoFill): DemoStatus {
  return { state: fill.filled_at === null ? 'filling' : 'filled', days: fill.days, daysFilled: fill.days_filled, requests: fill.requests };
}

/** A demo team's status; null for a team that is not a demo team. */
export async function demoStatus(db: Db, teamId: string): Promise<DemoStatus | null> {
  const fill = await findDemoFill(db, teamId);
  return fill === undefined ? null : statusOf(fill);
}

export function createDemoService(deps: { sql: SqlStore; queue: JobQueue<JobPayloads>; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  const service = {
    /**
     * `npm run demo`'s account: demo@example.com, verified, with a new random password each
     * time (printed by the caller; only its hash is kept), and its demo team, made once.
     */
    async demoAccount(): Promise<{ email: string; password: string; team: DemoTeam }> {
      const { db } = deps.sql;
      const password = randomBytes(15).toString('base64url');
      const passwordHash = await hashPassword(password);
      const user =
        (await findUserByEmail(db, DEMO_EMAIL)) ?? (await insertUser(db, { id: randomUUID(), email: DEMO_EMAIL, name: 'Demo user', passwordHash }));
      await db.updateTable('users').set({ password_hash: passwordHash, email_verified_at: user.email_verified_at ?? now() }).where('id', '=', user.id).execute();
      const team = await db.selectFrom('teams').select(['id', 'name']).where('created_by', '=', user.id).where('is_demo', '=', true).executeTakeFirst();
      const fill = team && (await findDemoFill(db, team.id));
      if (team && fill) return { email: DEMO_EMAIL, password, team: { teamId: team.id, name: team.name, ...statusOf(fill) } };
      return { email: DEMO_EMAIL, password, team: await service.createDemoTeam(user.id) };
    },

    /** Creates a demo team for `userId` and hands its first day of usage to the `demo-fill` job; the rest follows in the background. */
    async createDemoTeam(userId: string): Promise<DemoTeam> {
      const { db } = deps.sql;
      const teamId = randomUUID();
      const fill = await db
        .transaction()
        .execute(async (trx) => {
          // One per user: a unique index on demo teams' creator settles two at once.
          const existing = await trx.selectFrom('teams').select('id').where('created_by', '=', userId).where('is_demo', '=', true).executeTakeFirst();
          if (existing) throw new ConflictError(ALREADY_HAVE_ONE);
          await insertTeam(trx, { id: teamId, name: DEMO_TEAM_NAME, description: '90 days of sample usage, never billed', createdBy: userId });
          await trx.updateTable('teams').set({ is_demo: true }).where('id', '=', teamId).execute();
          const groups = [];
          for (const group of DEMO_GROUPS) {
            const groupId = randomUUID();
            await insertGroup(trx, { id: groupId, teamId, name: group.name, description: group.description, createdBy: userId });
            const keyIds = [];
            for (const key of DEMO_KEYS) {
              const keyId = randomUUID();
              const { hash, prefix } = generateIssuedKey();
              await insertIssuedKey(trx, { id: keyId, team_id: teamId, group_id: groupId, connection_id: null, kind: 'optimised', name: key.name, key_hash: hash, key_prefix: prefix, created_by: userId });
              keyIds.push(keyId);
            }
            groups.push({ groupId, keyIds });
          }
          await insertDemoFill(trx, { teamId, sampleEnd: now(), groups, days: DEMO_DAYS });
          return (await findDemoFill(trx, teamId))!;
        })
        .catch((error: unknown) => {
          throw (error as { code?: string }).code === UNIQUE_VIOLATION ? new ConflictError(ALREADY_HAVE_ONE) : error;
        });
      // Made once the team is committed; were this process to stop first, the next start hands the day over (the registry's `unfinished`).
      await deps.queue.enqueue('demo-fill', { teamId }, { jobId: demoFillJobId(teamId, 0) });
      return { teamId, name: DEMO_TEAM_NAME, ...statusOf(fill) };
    },
  };
  return service;
}

export type DemoService = ReturnType<typeof createDemoService>;
