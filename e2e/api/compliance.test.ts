/**
 * Compliance readiness through the API, in every run mode. The access review (Enterprise,
 * team admins): each member's team role and synthetic group roles, when they joined, and
 * when they last signed in — moved on by every sign-in path (password, a mailed code,
 * Google, an invitation) — as JSON and as a CSV file whose formula-looking names are
 * written as text; 403 for a member and off Enterprise (the plan's clear message), 404 for
 * another team, 400 naming a wrong format. Every retention setting in one place: the
 * defaults and bounds, 400 naming each field out of bounds, a change audited, prompt
 * capture's own setting changed through it, and the prune job honouring each team's own
 * retention of raw usage events and GPU samples (the deployment's default the longest).
 */
import { randomUUID } from 'node:crypto';
import { complianceRefusal, planTerms } from '@spendgate/core';
import { createLogger, ensureGpuCluster, insertGroupMember, insertTeamMember, insertUsageEvents, recordGpuSamples, upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPruneProcessor } from '../../worker/src/jobs/prune.ts';
import { type FakeGoogle, GOOGLE_CLIENT_ID, startFakeGoogle } from '../fakes/google.ts';
import { mailedCode, mailedInvitationToken, signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { usageEvent } from '../support/usage-events.ts';

const HOUR_MS = 3_600_000;
const PASSWORD = 'a long enough password';

for (const mode of testModes) {
  describe(`compliance readiness (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fakeGoogle: FakeGoogle;
    const admin = { token: '', userId: '' };
    const member = { token: '', userId: '' };
    const trial = { token: '', userId: '', teamId: '' };
    const ids = { team: '', group: '', other: '' };
    const db = () => spendgate.app.runtime.stores.sql.db;
    const api = (method: string, route: string, options: { token?: string; body?: unknown } = {}) => callApi(spendgate.url, method, route, { token: admin.token, ...options });
    const review = async (token = admin.token) => (await api('GET', `/teams/${ids.team}/access-review?format=json`, { token })).body;
    const signedInAt = async (userId: string) => (await review()).data.entries.find((entry: { userId: string; scope: string }) => entry.userId === userId && entry.scope === 'team').lastSignedInAt as string | null;

    beforeAll(async () => {
      fakeGoogle = await startFakeGoogle();
      spendgate = await startSpendgate(mode, `compliance-${mode}`, { env: { GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: fakeGoogle.jwksUrl } });
      Object.assign(admin, await signUp(spendgate.url, `compliance-admin-${mode}@example.com`, { name: 'Grace Admin' }));
      await upsertSubscription(db(), { userId: admin.userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
      ids.team = (await api('POST', '/team/', { body: { name: 'Audited', description: '' } })).body.data.id;
      ids.group = (await api('POST', '/synthetic-group', { body: { name: '=Research', description: '', teamId: ids.team } })).body.data.id;
      ids.other = (await api('POST', '/team/', { body: { name: 'Elsewhere', description: '' } })).body.data.id;
      Object.assign(member, await signUp(spendgate.url, `compliance-member-${mode}@example.com`, { name: '=HYPERLINK("http://evil.example")' }));
      await insertTeamMember(db(), { teamId: ids.team, userId: member.userId, role: 'MEMBER' });
      await insertGroupMember(db(), { groupId: ids.group, userId: member.userId, role: 'MAINTAINER' });
      Object.assign(trial, await signUp(spendgate.url, `compliance-trial-${mode}@example.com`));
      trial.teamId = (await api('POST', '/team/', { token: trial.token, body: { name: 'On trial', description: '' } })).body.data.id;
    }, 120_000);
    afterAll(async () => {
      await spendgate?.close();
      await fakeGoogle?.close();
    });

    it('lists who holds which role in the team and each group, when they joined and last signed in', async () => {
      const answer = await review();
      expect(answer.success, JSON.stringify(answer)).toBe(true);
      const at = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);
      expect(answer.data.entries).toEqual(
        expect.arrayContaining([
          { userId: admin.userId, email: `compliance-admin-${mode}@example.com`, name: 'Grace Admin', scope: 'team', groupId: null, groupName: null, role: 'ADMIN', joinedAt: at, lastSignedInAt: at },
          { userId: member.userId, email: `compliance-member-${mode}@example.com`, name: '=HYPERLINK("http://evil.example")', scope: 'team', groupId: null, groupName: null, role: 'MEMBER', joinedAt: at, lastSignedInAt: at },
          { userId: member.userId, email: `compliance-member-${mode}@example.com`, name: '=HYPERLINK("http://evil.example")', scope: 'group', groupId: ids.group, groupName: '=Research', role: 'MAINTAINER', joinedAt: at, lastSignedInAt: at },
        ]),
      );
      // The team's memberships first.
      expect(answer.data.entries.map((entry: { scope: string }) => entry.scope).indexOf('group')).toBe(2);
    });

    it('moves the last sign-in on for every sign-in path: password, a mailed code, Google, an invitation', async () => {
      const email = `compliance-member-${mode}@example.com`;
      let before = await signedInAt(member.userId);
      const moved = async () => {
        const now = await signedInAt(member.userId);
        expect(Date.parse(now!)).toBeGreaterThan(Date.parse(before!));
        before = now;
      };
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await api('POST', '/auth/login', { token: '', body: { email, password: PASSWORD } })).status).toBe(200);
      await moved();
      await api('POST', '/auth/forgot-password', { token: '', body: { email } });
      const reset = await api('POST', '/auth/reset-password', { token: '', body: { email, otp: await mailedCode(spendgate.url, email), newPassword: 'another long passphrase' } });
      expect(reset.status, JSON.stringify(reset.body)).toBe(200);
      await moved();
      const google = await api('POST', '/auth/google', { token: '', body: { token: await fakeGoogle.sign({ sub: `google-${mode}`, email, email_verified: true, name: 'Member' }) } });
      expect(google.status, JSON.stringify(google.body)).toBe(200);
      await moved();
      // The reset ended the member's older sessions.
      member.token = google.body.data.token;
      // A newcomer accepting an invitation is signed in by it.
      const invited = `compliance-invited-${mode}@example.com`;
      expect((await api('POST', '/team/invite', { body: { teamId: ids.team, email: invited, role: 'MEMBER' } })).status).toBe(201);
      const accepted = await api('POST', '/team/accept', { token: '', body: { token: await mailedInvitationToken(spendgate.url, invited), password: PASSWORD, name: 'Newcomer' } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(await signedInAt(accepted.body.data.user.id)).toEqual(expect.any(String));
    });

    it('writes the review as a CSV file, names that look like formulas written as text', async () => {
      const response = await fetch(`${spendgate.url}/api/teams/${ids.team}/access-review?format=csv`, { headers: { authorization: `Bearer ${admin.token}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="access-review-${ids.team}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
      const lines = (await response.text()).trimEnd().split('\n');
      expect(lines[0]).toBe('email,name,scope,groupId,groupName,role,joinedAt,lastSignedInAt');
      const groupLine = lines.find((line) => line.startsWith(`compliance-member-${mode}@`) && line.includes(',group,'))!;
      expect(groupLine).toMatch(new RegExp(`^compliance-member-${mode}@example\\.com,"'=HYPERLINK\\(""http://evil\\.example""\\)",group,${ids.group},'=Research,MAINTAINER,\\d{4}-[^,]+Z,\\d{4}-[^,]+Z$`));
      expect(lines.filter((line) => /^[=+\-@]/.test(line.split(',')[1] ?? ''))).toEqual([]);
    });

    it('answers 403 to a member and off Enterprise with the plan’s message, 404 for another team, 400 naming a wrong format', async () => {
      const asMember = await api('GET', `/teams/${ids.team}/access-review`, { token: member.token });
      expect([asMember.status, asMember.body.message]).toEqual([403, 'Only team admins can export the access review']);
      const offPlan = await api('GET', `/teams/${trial.teamId}/access-review`, { token: trial.token });
      expect([offPlan.status, (offPlan.body as { code?: string }).code, offPlan.body.message]).toEqual([403, 'plan_required', complianceRefusal(planTerms('free-trial'))]);
      expect(offPlan.body.message).toBe('ISO/SOC2 readiness (the access review) is part of the Enterprise plan; the Free Trial plan does not include it');
      expect((await api('GET', `/teams/${ids.team}/access-review`, { token: trial.token })).status).toBe(404);
      const wrong = await api('GET', `/teams/${ids.team}/access-review?format=xml`);
      expect([wrong.status, wrong.body.field]).toEqual([400, 'format']);
      expect((await api('GET', '/teams/not-a-team/access-review')).body.field).toBe('teamId');
    });

    it('shows every retention setting with its default and bounds, and refuses each field out of bounds by name', async () => {
      const shown = await api('GET', `/teams/${ids.team}/retention`);
      expect(shown.status, JSON.stringify(shown.body)).toBe(200);
      expect(shown.body.data).toEqual({
        teamId: ids.team,
        usageEvents: { days: null, effectiveDays: 400, defaultDays: 400, minDays: 90, maxDays: 400 },
        promptCaptures: { days: null, effectiveDays: 30, defaultDays: 30, minDays: 1, maxDays: 365 },
        gpuSamples: { hours: null, effectiveHours: 48, defaultHours: 48, minHours: 24, maxHours: 48 },
        auditLog: { days: 365, effectiveDays: 365, defaultDays: 365, minDays: 30, maxDays: 3650 },
      });
      for (const [body, field] of [
        [{ usageEventDays: 89 }, 'usageEventDays'],
        [{ usageEventDays: 401 }, 'usageEventDays'],
        [{ usageEventDays: 100.5 }, 'usageEventDays'],
        [{ usageEventDays: '120' }, 'usageEventDays'],
        [{ promptCaptureDays: 0 }, 'promptCaptureDays'],
        [{ promptCaptureDays: 366 }, 'promptCaptureDays'],
        [{ gpuSampleHours: 23 }, 'gpuSampleHours'],
        [{ gpuSampleHours: 49 }, 'gpuSampleHours'],
        [{ auditLogDays: 29 }, 'auditLogDays'],
        [{ auditLogDays: 3651 }, 'auditLogDays'],
      ] as const) {
        const refused = await api('PUT', `/teams/${ids.team}/retention`, { body });
        expect([refused.status, refused.body.field], JSON.stringify(body)).toEqual([400, field]);
      }
      for (const body of [{}, { auditDays: 30 }, []]) expect((await api('PUT', `/teams/${ids.team}/retention`, { body })).status, JSON.stringify(body)).toBe(400);
      expect((await api('PUT', `/teams/${ids.team}/retention`, { token: member.token, body: { usageEventDays: 120 } })).status).toBe(403);
      expect((await api('GET', `/teams/${ids.team}/retention`, { token: trial.token })).status).toBe(404);
    });

    it('saves the team’s own retention (audited; captured prompts through prompt capture’s setting), and the prune job honours it per team', async () => {
      const saved = await api('PUT', `/teams/${ids.team}/retention`, { body: { usageEventDays: 120, promptCaptureDays: 7, gpuSampleHours: 24, auditLogDays: 60 } });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(saved.body.data).toMatchObject({ usageEvents: { days: 120, effectiveDays: 120 }, promptCaptures: { days: 7, effectiveDays: 7 }, gpuSamples: { hours: 24, effectiveHours: 24 }, auditLog: { days: 60 } });
      // Captured prompts and the audit log through their own services' settings.
      expect((await api('GET', `/capture/teams/${ids.team}`)).body.data).toMatchObject({ retentionDays: 7, effectiveRetentionDays: 7 });
      expect((await api('GET', `/audit/retention/${ids.team}`)).body.data).toMatchObject({ auditRetentionDays: 60 });
      const audit = await db().selectFrom('audit_log').select(['action', 'before', 'after']).where('team_id', '=', ids.team).where('action', 'in', ['team.retention.updated', 'audit.retention_updated']).orderBy('seq').execute();
      expect(audit).toEqual([
        { action: 'audit.retention_updated', before: { auditRetentionDays: 365 }, after: { auditRetentionDays: 60 } },
        { action: 'team.retention.updated', before: { usageEventDays: null, gpuSampleHours: null }, after: { usageEventDays: 120, gpuSampleHours: 24 } },
      ]);
      // A field left out is kept; null returns it to the default.
      expect((await api('PUT', `/teams/${ids.team}/retention`, { body: { promptCaptureDays: null } })).body.data).toMatchObject({ usageEvents: { days: 120 }, promptCaptures: { days: null, effectiveDays: 30 }, gpuSamples: { hours: 24 } });

      // Usage events 10, 200 and 500 days old, and GPU samples 12 and 30 hours old, in the team (its own retention) and another (the defaults).
      const owner = (teamId: string) => ({ teamId, groupId: '', keyId: '' });
      const ages = new Map<string, number>();
      const events = [ids.team, ids.other].flatMap((teamId) =>
        [10, 200, 500].map((days) => {
          const event = usageEvent(owner(teamId), days, { group_id: null, key_id: null });
          ages.set(event.request_id, days);
          return event;
        }),
      );
      await insertUsageEvents(db(), events);
      const now = Date.now();
      for (const teamId of [ids.team, ids.other]) {
        const clusterId = await ensureGpuCluster(db(), teamId, 'training');
        const gpuUuid = `GPU-${randomUUID()}`;
        const sample = (hours: number) => ({ at: now - hours * HOUR_MS, gpuUuid, index: 0, model: 'NVIDIA H200', host: 'h1', utilizationPct: 0, memoryUsedMiB: 0, memoryTotalMiB: 143_771, powerW: 80 });
        await recordGpuSamples(db(), teamId, clusterId, [sample(12), sample(30)], new Date(now));
      }
      const prune = createPruneProcessor({ sql: spendgate.app.runtime.stores.sql, log: createLogger('silent'), usageEventRetentionDays: 400, gpuSampleRetentionHours: 48 });
      await prune();
      await prune();
      const kept = async (teamId: string) => ({
        events: (await db().selectFrom('usage_events').select('request_id').where('team_id', '=', teamId).where('request_id', 'in', [...ages.keys()]).orderBy('occurred_at', 'desc').execute()).map((row) => ages.get(row.request_id)),
        samples: (
          await db().selectFrom('gpu_samples').innerJoin('gpu_devices', 'gpu_devices.id', 'gpu_samples.gpu_id').select('gpu_samples.at').where('gpu_devices.team_id', '=', teamId).orderBy('at', 'desc').execute()
        ).map((row) => Math.round((now - row.at.getTime()) / HOUR_MS)),
      });
      // The team keeps 120 days of events and 24 hours of samples; the other the defaults, 400 days and 48 hours.
      expect(await kept(ids.team)).toEqual({ events: [10], samples: [12] });
      expect(await kept(ids.other)).toEqual({ events: [10, 200], samples: [12, 30] });
    });
  });
}
