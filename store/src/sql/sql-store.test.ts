// Contract suite for the SQL store: the same repositories, run on PGlite and (when
// TEST_DATABASE_URL is set) PostgreSQL.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keyedBodyHash from '../../../migrations/20261126_0012_keyed_body_hash.ts';
import { openTestSqlStore, sqlBackends } from '../testing/sql.ts';
import { usageEvent } from '../testing/usage-events.ts';
import type { SqlStore } from './connect.ts';
import { listAudit, writeAudit } from './repos/audit.ts';
import { findConnection, insertConnection, insertTeamDataKeyIfAbsent } from './repos/connections.ts';
import { findGroupForUser, insertGroup } from './repos/groups.ts';
import { findKeyPrincipal, insertIssuedKey } from './repos/keys.ts';
import { findTeamRole, insertTeam, listTeamsOfUser } from './repos/teams.ts';
import { insertUsageEvents } from './repos/usage.ts';
import { sumRollups } from './repos/usage-rollups.ts';
import { findUserByEmail, insertUser } from './repos/users.ts';
import type { NewUsageEvent } from './schema.ts';

for (const backend of sqlBackends) {
  describe(`SQL store on ${backend}`, () => {
    let store: SqlStore;
    const ids = {
      alice: randomUUID(),
      bob: randomUUID(),
      teamA: randomUUID(),
      teamB: randomUUID(),
      group: randomUUID(),
      connection: randomUUID(),
      key: randomUUID(),
    };

    beforeAll(async () => {
      store = await openTestSqlStore(backend, new Date('2026-11-15T00:00:00Z'));
      const { db } = store;
      await insertUser(db, { id: ids.alice, email: 'Alice@Example.com', name: 'Alice', passwordHash: 'x' });
      await insertUser(db, { id: ids.bob, email: 'bob@example.com', name: 'Bob', passwordHash: 'x' });
      await insertTeam(db, { id: ids.teamA, name: 'A', description: '', createdBy: ids.alice });
      await insertTeam(db, { id: ids.teamB, name: 'B', description: '', createdBy: ids.bob });
      await insertGroup(db, { id: ids.group, teamId: ids.teamA, name: 'G', description: '', createdBy: ids.alice });
      await insertConnection(db, {
        id: ids.connection,
        team_id: ids.teamA,
        provider: 'openai',
        name: 'main',
        base_url: 'https://api.openai.com/v1',
        secret_ciphertext: new Uint8Array([1, 2, 3]),
        secret_key_version: 1,
        secret_tail: 'abcd',
        created_by: ids.alice,
      });
      await insertIssuedKey(db, {
        id: ids.key,
        team_id: ids.teamA,
        group_id: ids.group,
        connection_id: ids.connection,
        kind: 'byok',
        name: 'k',
        key_hash: 'hash-1',
        key_prefix: 'sg_live_abc',
        created_by: ids.alice,
      });
    });
    afterAll(() => store?.close());

    it('finds users by email case-insensitively', async () => {
      const user = await findUserByEmail(store.db, 'ALICE@example.com');
      expect(user?.id).toBe(ids.alice);
      expect(user?.email).toBe('alice@example.com');
    });

    it('makes a team creator its ADMIN and scopes membership', async () => {
      expect(await findTeamRole(store.db, ids.teamA, ids.alice)).toBe('ADMIN');
      expect(await findTeamRole(store.db, ids.teamA, ids.bob)).toBeUndefined();
      expect((await listTeamsOfUser(store.db, ids.bob)).map((t) => t.id)).toEqual([ids.teamB]);
    });

    it('shows a group only to members of its team', async () => {
      expect((await findGroupForUser(store.db, ids.group, ids.alice))?.groupRole).toBe('ADMIN');
      expect(await findGroupForUser(store.db, ids.group, ids.bob)).toBeUndefined();
    });

    it('never returns another team’s connection', async () => {
      expect((await findConnection(store.db, ids.teamA, ids.connection))?.secret_tail).toBe('abcd');
      expect(await findConnection(store.db, ids.teamB, ids.connection)).toBeUndefined();
    });

    it('resolves a key hash to its principal with the encrypted secret as bytes', async () => {
      const principal = await findKeyPrincipal(store.db, 'hash-1');
      expect(principal).toMatchObject({ keyId: ids.key, teamId: ids.teamA, groupId: ids.group, provider: 'openai' });
      expect([...principal!.secretCiphertext!]).toEqual([1, 2, 3]);
      expect(await findKeyPrincipal(store.db, 'unknown')).toBeUndefined();
    });

    it('keeps the first team data key', async () => {
      const first = await insertTeamDataKeyIfAbsent(store.db, { teamId: ids.teamA, keyVersion: 1, wrappedKey: new Uint8Array([9]) });
      const second = await insertTeamDataKeyIfAbsent(store.db, { teamId: ids.teamA, keyVersion: 2, wrappedKey: new Uint8Array([8]) });
      expect(second.key_version).toBe(first.key_version);
      expect([...second.wrapped_key]).toEqual([9]);
    });

    it('records each request once, across monthly partitions, with bigint money', async () => {
      const event = (requestId: string, occurredAt: string, cost: bigint | null) =>
        usageEvent({ teamId: ids.teamA, groupId: ids.group, keyId: ids.key }, occurredAt, {
          request_id: requestId,
          connection_id: ids.connection,
          output_tokens: 500n,
          cost_micros: cost,
          price_version: cost === null ? null : '2026-08-21',
        });
      const batch = [
        event('r1', '2026-10-31T23:59:59Z', 7_500n),
        event('r2', '2026-11-01T00:00:00Z', 9_007_199_254_740_993n),
        event('r3', '2026-11-20T10:00:00Z', null),
        event('r3', '2026-11-20T10:00:00Z', null),
      ];
      expect(await insertUsageEvents(store.db, batch)).toBe(3);
      expect(await insertUsageEvents(store.db, batch)).toBe(0);

      // Hourly cells are UTC hours, so November is exactly its hours whatever the team's time zone.
      const november = await sumRollups(store.db, {
        grain: 'hour',
        teamId: ids.teamA,
        groupId: ids.group,
        from: new Date('2026-11-01T00:00:00Z'),
        to: new Date('2026-12-01T00:00:00Z'),
      });
      expect(november).toMatchObject({
        requests: 2n,
        inputTokens: 2000n,
        outputTokens: 1000n,
        costMicros: 9_007_199_254_740_993n,
        unpricedRequests: 1n,
      });
      const otherTeam = await sumRollups(store.db, {
        grain: 'hour',
        teamId: ids.teamB,
        groupId: ids.group,
        from: new Date('2026-01-01T00:00:00Z'),
        to: new Date('2027-01-01T00:00:00Z'),
      });
      expect(otherTeam.requests).toBe(0n);
    });

    it('stores every value of an event as given, and the defaults of columns no event gives', async () => {
      const given: NewUsageEvent = {
        request_id: `odd-${randomUUID()}`,
        occurred_at: '2026-11-20T10:00:00.123Z',
        team_id: ids.teamA,
        group_id: ids.group,
        key_id: ids.key,
        connection_id: null,
        provider: 'openai-compatible',
        model: 'my "model", {v2}\\ é ✓ \\u0000 as text',
        endpoint: 'chat.completions',
        status_code: 499,
        streamed: true,
        estimated: true,
        input_tokens: 9_007_199_254_740_993n,
        cached_read_tokens: 1n,
        cache_write_5m_tokens: 2n,
        cache_write_1h_tokens: 3n,
        output_tokens: 4n,
        reasoning_tokens: 5n,
        cost_micros: null,
        currency: 'USD',
        price_version: null,
        latency_ms: 30_000,
        billed_micros: 7n,
        fx_rate_ppm: 790_000n,
        billing_rule: 'byok-free',
        budget_spend_micros: 0n,
        route: 'requested; failover: gpt-4o 503 x3 -> claude-haiku-4-5',
        body_hmac: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
        requested_output_tokens: 16_384,
        requested_model: 'gpt-4o "as asked", é',
      };
      expect(await insertUsageEvents(store.db, [given])).toBe(1);
      const stored = await store.db.selectFrom('usage_events').selectAll().where('request_id', '=', given.request_id).executeTakeFirstOrThrow();
      expect(stored).toEqual({ ...given, occurred_at: new Date(given.occurred_at), key_kind: 'byok', billed_currency: 'GBP', recorded_at: expect.any(Date) });
    });

    it('erases the plain body hashes recorded before fingerprints were keyed (migration 0012)', async () => {
      await keyedBodyHash.down(store.db);
      const requestId = `plain-${randomUUID()}`;
      await sql`insert into usage_events (request_id, occurred_at, team_id, group_id, key_id, provider, model, endpoint, status_code, streamed, estimated,
          input_tokens, cached_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens, currency, latency_ms, body_sha256)
        values (${requestId}, '2026-11-20T10:00:00Z', ${ids.teamA}, ${ids.group}, ${ids.key}, 'openai', 'gpt-4o', 'chat.completions', 200, false, false,
          1, 0, 0, 0, 1, 0, 'USD', 10, 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9')`.execute(store.db);
      await keyedBodyHash.up(store.db);
      const row = await store.db.selectFrom('usage_events').select(['request_id', 'body_hmac']).where('request_id', '=', requestId).executeTakeFirstOrThrow();
      expect(row).toEqual({ request_id: requestId, body_hmac: null });
      // The partial (team, hash) index now covers the keyed column.
      const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'usage_events_team_body_idx'`.execute(store.db);
      expect(rows[0]?.indexdef).toContain('(team_id, body_hmac) WHERE (body_hmac IS NOT NULL)');
    });

    it('writes audit rows per team', async () => {
      await writeAudit(store.db, {
        teamId: ids.teamA,
        actorUserId: ids.alice,
        action: 'key.created',
        targetType: 'issued_key',
        targetId: ids.key,
      });
      const rows = await listAudit(store.db, ids.teamA);
      expect(rows.map((r) => r.action)).toEqual(['key.created']);
      expect(await listAudit(store.db, ids.teamB)).toEqual([]);
    });
  });
}
