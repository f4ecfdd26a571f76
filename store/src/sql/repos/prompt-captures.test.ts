// Prompt captures at rest, on PGlite and (with TEST_DATABASE_URL) PostgreSQL: sealed with
// the team's data key (nothing readable in the table, a row moved to another request or
// team does not open), read only by their team and until they expire, a shorter retention
// applied to what is kept, and expired ones pruned.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvelope } from '../../secrets/envelope.ts';
import { openTestSqlStore, sqlBackends } from '../../testing/sql.ts';
import type { SqlStore } from '../connect.ts';
import { insertTeamDataKeyIfAbsent } from './connections.ts';
import { insertGroup } from './groups.ts';
import {
  deleteExpiredPromptCaptures,
  findCaptureSettings,
  findPromptCapture,
  insertPromptCaptures,
  upsertGroupCaptureSetting,
  upsertTeamCaptureSettings,
} from './prompt-captures.ts';
import { insertTeam } from './teams.ts';
import { insertUser } from './users.ts';

const DAY_MS = 86_400_000;
const SECRET_TEXT = 'the quarterly numbers are 1234567 and nobody may see them';

for (const backend of sqlBackends) {
  describe(`prompt captures on ${backend}`, () => {
    let store: SqlStore & { close(): Promise<void> };
    const envelope = createEnvelope(randomBytes(32));
    const ids = { user: randomUUID(), team: randomUUID(), otherTeam: randomUUID(), group: randomUUID() };
    let wrapped: Uint8Array;

    beforeAll(async () => {
      store = await openTestSqlStore(backend);
      await insertUser(store.db, { id: ids.user, email: `capture-${backend}-${ids.user}@example.com`, name: 'C', passwordHash: 'x' });
      await insertTeam(store.db, { id: ids.team, name: 'C', description: '', createdBy: ids.user });
      await insertTeam(store.db, { id: ids.otherTeam, name: 'D', description: '', createdBy: ids.user });
      await insertGroup(store.db, { id: ids.group, teamId: ids.team, name: 'G', description: '', createdBy: ids.user });
      wrapped = (await insertTeamDataKeyIfAbsent(store.db, { teamId: ids.team, keyVersion: 1, wrappedKey: envelope.newDataKey(ids.team, 1).wrapped })).wrapped_key;
    });
    afterAll(async () => {
      await store?.close();
    });

    const capture = (requestId: string, capturedAt: Date, days: number, teamId = ids.team) => ({
      request_id: requestId,
      team_id: teamId,
      group_id: ids.group,
      captured_at: capturedAt,
      expires_at: new Date(capturedAt.getTime() + days * DAY_MS),
      key_version: 1,
      sealed: envelope.sealCapture(wrapped, { teamId: ids.team, requestId, version: 1 }, SECRET_TEXT),
    });

    it('stores only ciphertext, opens for its own team and request, and for no other', async () => {
      const requestId = `req-${randomUUID()}`;
      await insertPromptCaptures(store.db, [capture(requestId, new Date(), 30)]);
      const row = await findPromptCapture(store.db, ids.team, requestId, new Date());
      expect(row).toBeDefined();
      const stored = Buffer.from(row!.sealed);
      expect(stored.includes(Buffer.from('quarterly'))).toBe(false);
      expect(stored.includes(Buffer.from('1234567'))).toBe(false);
      expect(envelope.openCapture(wrapped, { teamId: ids.team, requestId, version: 1 }, row!.sealed)).toBe(SECRET_TEXT);
      // The seal is bound to its request and team: moved elsewhere it does not open.
      expect(() => envelope.openCapture(wrapped, { teamId: ids.team, requestId: 'another-request', version: 1 }, row!.sealed)).toThrow();
      expect(() => envelope.openCapture(wrapped, { teamId: ids.otherTeam, requestId, version: 1 }, row!.sealed)).toThrow();
      // Another team asking for the request finds nothing.
      expect(await findPromptCapture(store.db, ids.otherTeam, requestId, new Date())).toBeUndefined();
    });

    it('keeps the first capture of a request', async () => {
      const requestId = `req-${randomUUID()}`;
      const first = capture(requestId, new Date(), 30);
      await insertPromptCaptures(store.db, [first]);
      await insertPromptCaptures(store.db, [{ ...capture(requestId, new Date(), 30), sealed: Buffer.from('second') }]);
      const row = await findPromptCapture(store.db, ids.team, requestId, new Date());
      expect(Buffer.from(row!.sealed).equals(Buffer.from(first.sealed))).toBe(true);
    });

    it('shortens what is kept when the retention falls, hides expired captures and prunes them', async () => {
      const now = new Date();
      const recent = `req-${randomUUID()}`;
      const old = `req-${randomUUID()}`;
      await insertPromptCaptures(store.db, [capture(recent, new Date(now.getTime() - 2 * DAY_MS), 30), capture(old, new Date(now.getTime() - 10 * DAY_MS), 30)]);
      await upsertTeamCaptureSettings(store.db, ids.team, { enabled: true, retentionDays: 7, effectiveRetentionDays: 7, redactionPatterns: ['ACME-[0-9]+'] });
      expect(await findPromptCapture(store.db, ids.team, old, now)).toBeUndefined();
      const kept = await findPromptCapture(store.db, ids.team, recent, now);
      expect(kept!.expires_at.getTime() - kept!.captured_at.getTime()).toBe(7 * DAY_MS);

      const before = await store.db.selectFrom('prompt_captures').select('request_id').where('team_id', '=', ids.team).execute();
      const pruned = await deleteExpiredPromptCaptures(store.db, now);
      expect(pruned).toBeGreaterThanOrEqual(1);
      const after = await store.db.selectFrom('prompt_captures').select('request_id').where('team_id', '=', ids.team).execute();
      expect(after.map((row) => row.request_id)).toContain(recent);
      expect(after.map((row) => row.request_id)).not.toContain(old);
      expect(after.length).toBe(before.length - pruned);
      expect(await deleteExpiredPromptCaptures(store.db, now)).toBe(0);
    });

    it('reads the team settings and its groups', async () => {
      await upsertGroupCaptureSetting(store.db, ids.team, ids.group, true);
      const { team, groups } = await findCaptureSettings(store.db, ids.team);
      expect(team).toMatchObject({ enabled: true, retention_days: 7, redaction_patterns: ['ACME-[0-9]+'] });
      expect(groups).toEqual([{ group_id: ids.group, enabled: true }]);
      expect(await findCaptureSettings(store.db, ids.otherTeam)).toEqual({ team: undefined, groups: [] });
    });
  });
}
