// The audit log's hash chain on PGlite and (when TEST_DATABASE_URL is set) PostgreSQL:
// appends number each team's rows without gaps and link them; verification passes an
// untouched chain and names the first broken link of an edited, deleted, reordered or
// cut-short one; appends made at once stay one valid chain; pruning keeps what stays
// verifiable from its anchor; rows written before the chain existed are chained by the
// migration in id order; secrets are redacted and the request's origin recorded.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as auditChain from '../../../../migrations/20261128_0201_audit_chain.ts';
import { openTestSqlStore, sqlBackends } from '../../testing/sql.ts';
import type { SqlStore } from '../connect.ts';
import { AUDIT_GENESIS_HASH, type AuditEntry, listAudit, pruneAuditLog, setAuditRetentionDays, verifyAuditChain, withAuditOrigin, writeAudit } from './audit.ts';

const entry = (teamId: string, n: number): AuditEntry => ({ teamId, actorUserId: null, action: 'budget.updated', targetType: 'budget', targetId: `b${n}`, details: { n } });

for (const backend of sqlBackends) {
  describe(`audit chain on ${backend}`, () => {
    let store: SqlStore;
    const newTeam = () => randomUUID();
    const append = async (teamId: string, count: number) => {
      for (let n = 1; n <= count; n++) await writeAudit(store.db, entry(teamId, n));
    };
    const rowAt = async (teamId: string, seq: number) =>
      store.db.selectFrom('audit_log').selectAll().where('team_id', '=', teamId).where('seq', '=', BigInt(seq)).executeTakeFirstOrThrow();

    beforeAll(async () => {
      store = await openTestSqlStore(backend);
    });
    afterAll(async () => store?.close());

    it('numbers a team’s rows 1, 2, 3 linked by their hashes, and verifies them', async () => {
      const team = newTeam();
      await append(team, 3);
      await append(newTeam(), 2);
      const rows = await listAudit(store.db, team);
      expect(rows.map((row) => row.seq)).toEqual([1n, 2n, 3n]);
      expect(rows[0]!.prev_hash).toBe(AUDIT_GENESIS_HASH);
      expect(rows[1]!.prev_hash).toBe(rows[0]!.hash);
      expect(rows[2]!.prev_hash).toBe(rows[1]!.hash);
      expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.hash))).toBe(true);
      expect(await verifyAuditChain(store.db, team)).toEqual({ ok: true, checked: 3, anchorSeq: '0', headSeq: '3', broken: null });
    });

    it('detects a row whose details were edited by SQL, at that row', async () => {
      const team = newTeam();
      await append(team, 4);
      const edited = await rowAt(team, 2);
      await sql`update audit_log set details = '{"n": 99}'::jsonb where id = ${edited.id}`.execute(store.db);
      expect((await verifyAuditChain(store.db, team)).broken).toEqual({ seq: '2', id: edited.id.toString(), reason: 'edited' });
    });

    it('detects an edit whose hash was recomputed too, at the next row', async () => {
      const team = newTeam();
      await append(team, 3);
      const edited = await rowAt(team, 2);
      await sql`update audit_log set actor_ip = '10.0.0.1' where id = ${edited.id}`.execute(store.db);
      await sql`update audit_log set hash = encode(sha256(convert_to(jsonb_build_array(team_id, seq, action, actor_user_id, actor_ip, actor_user_agent, target_type, target_id, details, before, after, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), prev_hash)::text, 'UTF8')), 'hex') where id = ${edited.id}`.execute(
        store.db,
      );
      const next = await rowAt(team, 3);
      expect((await verifyAuditChain(store.db, team)).broken).toEqual({ seq: '3', id: next.id.toString(), reason: 'relinked' });
    });

    it('detects a deleted middle row at the row after it, and a deleted newest row', async () => {
      const team = newTeam();
      await append(team, 5);
      await store.db.deleteFrom('audit_log').where('team_id', '=', team).where('seq', '=', 3n).execute();
      const after = await rowAt(team, 4);
      expect((await verifyAuditChain(store.db, team)).broken).toEqual({ seq: '4', id: after.id.toString(), reason: 'missing' });

      const other = newTeam();
      await append(other, 3);
      await store.db.deleteFrom('audit_log').where('team_id', '=', other).where('seq', '=', 3n).execute();
      expect((await verifyAuditChain(store.db, other)).broken).toEqual({ seq: '3', id: null, reason: 'tail-missing' });
    });

    it('detects reordered rows', async () => {
      const team = newTeam();
      await append(team, 4);
      const [second, third] = [await rowAt(team, 2), await rowAt(team, 3)];
      await sql`update audit_log set seq = -1 where id = ${second.id}`.execute(store.db);
      await sql`update audit_log set seq = 2 where id = ${third.id}`.execute(store.db);
      await sql`update audit_log set seq = 3 where id = ${second.id}`.execute(store.db);
      const verification = await verifyAuditChain(store.db, team);
      expect(verification.ok).toBe(false);
      expect(verification.broken).toMatchObject({ seq: '2', id: third.id.toString() });
    });

    it('keeps one valid, gap-free chain when appends arrive at once', async () => {
      const team = newTeam();
      await Promise.all(Array.from({ length: 30 }, (_, n) => writeAudit(store.db, entry(team, n))));
      await store.db.transaction().execute(async (trx) => {
        await writeAudit(trx, entry(team, 100));
        await writeAudit(trx, entry(team, 101));
      });
      const rows = await listAudit(store.db, team);
      expect(rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: 32 }, (_, n) => n + 1));
      expect(await verifyAuditChain(store.db, team)).toMatchObject({ ok: true, checked: 32, headSeq: '32' });
    });

    it('prunes past the retention from the oldest, anchoring the chain so the rest still verifies', async () => {
      const team = newTeam();
      await append(team, 4);
      await setAuditRetentionDays(store.db, team, 30);
      const third = await rowAt(team, 3);
      const expectedGone = (await listAudit(store.db, team)).filter((row) => row.created_at < third.created_at);
      const deleted = await pruneAuditLog(store.db, new Date(third.created_at.getTime() + 30 * 86_400_000));
      expect(deleted).toBeGreaterThanOrEqual(expectedGone.length);
      expect((await listAudit(store.db, team)).map((row) => row.seq)).toEqual([3n, 4n]);
      expect(await verifyAuditChain(store.db, team)).toEqual({ ok: true, checked: 2, anchorSeq: '2', headSeq: '4', broken: null });
      await writeAudit(store.db, entry(team, 5));
      expect(await verifyAuditChain(store.db, team)).toMatchObject({ ok: true, checked: 3, headSeq: '5' });
      await sql`update audit_log set details = '{}'::jsonb where id = ${third.id}`.execute(store.db);
      expect((await verifyAuditChain(store.db, team)).broken).toEqual({ seq: '3', id: third.id.toString(), reason: 'edited' });
    });

    it('records the request’s IP and user agent, and redacts secrets in before and after', async () => {
      const team = newTeam();
      await withAuditOrigin({ ip: '203.0.113.7', userAgent: 'curl/8.5' }, () =>
        writeAudit(store.db, {
          ...entry(team, 1),
          action: 'alert-channel.updated',
          before: { name: 'ops', webhookUrl: 'https://hooks.slack.com/services/T0/B0/abcdef', apiKey: 'sk-live-abcdefghijklmnopqrstuvwxyz' },
          after: { name: 'ops', password: 'hunter2', limitMicros: 5_000_000n, note: 'sg_live_0123456789abcdefghijklmnop' },
        }),
      );
      const [row] = await listAudit(store.db, team);
      expect(row).toMatchObject({
        actor_ip: '203.0.113.7',
        actor_user_agent: 'curl/8.5',
        before: { name: 'ops', webhookUrl: 'https://hooks.slack.com/[redacted]', apiKey: '[redacted]' },
        after: { name: 'ops', password: '[redacted]', limitMicros: '5000000', note: '[redacted]' },
      });
      expect((await verifyAuditChain(store.db, team)).ok).toBe(true);
    });

    it('chains the rows written before the chain existed, in id order (migration 20261128_0201)', async () => {
      const fresh = await openTestSqlStore(backend);
      try {
        const [teamA, teamB] = [newTeam(), newTeam()];
        await auditChain.down(fresh.db);
        for (const [teamId, n] of [[teamA, 1], [teamB, 1], [teamA, 2], [teamA, 3]] as const) {
          await sql`insert into audit_log (team_id, action, target_type, target_id, details) values (${teamId}, 'key.created', 'issued_key', ${`k${n}`}, ${JSON.stringify({ n })}::jsonb)`.execute(fresh.db);
        }
        await auditChain.up(fresh.db);
        expect((await listAudit(fresh.db, teamA)).map((row) => [row.seq, row.target_id])).toEqual([[1n, 'k1'], [2n, 'k2'], [3n, 'k3']]);
        expect(await verifyAuditChain(fresh.db, teamA)).toMatchObject({ ok: true, checked: 3, headSeq: '3' });
        expect(await verifyAuditChain(fresh.db, teamB)).toMatchObject({ ok: true, checked: 1, headSeq: '1' });
        await writeAudit(fresh.db, entry(teamA, 4));
        expect(await verifyAuditChain(fresh.db, teamA)).toMatchObject({ ok: true, checked: 4, headSeq: '4' });
      } finally {
        await fresh.close();
      }
    });
  });
}
