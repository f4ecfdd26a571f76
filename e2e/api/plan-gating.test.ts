/**
 * Plan gating, in every run mode, as one table: every Enterprise feature's routes — GPU
 * analytics (settings, prices, ingest keys, exporters, every read), idle-GPU alerts (their idle
 * rules) and Slack alerts, single sign-on's configuration, the audit log's reading, export and
 * verification, and the access review — answer a team admin on the free trial, Developers and
 * Growth 403 `plan_required` with the feature's own clear message naming the plan, and answer an
 * Enterprise team's admin without it.
 */
import { auditLogRefusal, complianceRefusal, gpuAnalyticsRefusal, type PlanSlug, planTerms, singleSignOnRefusal } from '@spendgate/core';
import { upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackWebhook, startFakeSlackWebhook } from '../fakes/slack-webhook.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const PLANS: PlanSlug[] = ['free-trial', 'developers', 'growth', 'enterprise'];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface GatedRoute {
  feature: string;
  method: string;
  /** The route under /api, for a team. */
  path: (teamId: string) => string;
  body?: (teamId: string) => unknown;
  /** What a team on `plan` is told. */
  refusal: (plan: PlanSlug) => string;
}

const gpu = (plan: PlanSlug) => gpuAnalyticsRefusal(planTerms(plan));
const sso = (plan: PlanSlug) => singleSignOnRefusal(planTerms(plan));
const audit = (plan: PlanSlug) => auditLogRefusal(planTerms(plan));
const review = (plan: PlanSlug) => complianceRefusal(planTerms(plan));
const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date().toISOString()}`;

function gatedRoutes(slack: FakeSlackWebhook): GatedRoute[] {
  return [
    { feature: 'GPU analytics', method: 'GET', path: (teamId) => `/gpu/settings?teamId=${teamId}`, refusal: gpu },
    { feature: 'GPU analytics', method: 'PUT', path: () => '/gpu/prices', body: (teamId) => ({ teamId, prices: [{ model: 'NVIDIA H200', perHour: '3.50' }] }), refusal: gpu },
    { feature: 'GPU analytics', method: 'POST', path: () => '/gpu/ingest-keys', body: (teamId) => ({ teamId, name: 'agent' }), refusal: gpu },
    { feature: 'GPU analytics', method: 'DELETE', path: (teamId) => `/gpu/ingest-keys/${UNKNOWN_ID}?teamId=${teamId}`, refusal: gpu },
    { feature: 'GPU analytics', method: 'POST', path: () => '/gpu/exporters', body: (teamId) => ({ teamId, cluster: 'training', url: 'http://127.0.0.1:9/metrics' }), refusal: gpu },
    { feature: 'GPU analytics', method: 'DELETE', path: (teamId) => `/gpu/exporters/${UNKNOWN_ID}?teamId=${teamId}`, refusal: gpu },
    ...['utilization', 'heatmap', 'idle', 'power', 'waste'].map((read) => ({ feature: 'GPU analytics', method: 'GET', path: (teamId: string) => `/gpu/${read}?teamId=${teamId}&${range}`, refusal: gpu })),
    { feature: 'Idle-GPU alerts', method: 'PUT', path: () => '/gpu/settings', body: (teamId) => ({ teamId, idleBelowPct: 5, idleAfterMinutes: 45 }), refusal: gpu },
    {
      feature: 'Slack alerts',
      method: 'POST',
      path: () => '/alerts/channels',
      body: (teamId) => ({ kind: 'slack', teamId, name: 'Ops', webhookUrl: slack.webhookUrl }),
      refusal: (plan) => `Slack alerts are part of the Enterprise plan; the ${planTerms(plan).name} plan sends alerts by e-mail`,
    },
    { feature: 'Single sign-on', method: 'GET', path: (teamId) => `/sso?teamId=${teamId}`, refusal: sso },
    {
      feature: 'Single sign-on',
      method: 'PUT',
      path: () => '/sso',
      body: (teamId) => ({ teamId, issuer: 'http://127.0.0.1:9/idp', clientId: 'spendgate', clientSecret: 'secret', domains: [`${teamId.slice(0, 8)}.example.com`], enforced: false, defaultTeamRole: 'MEMBER', mappings: [] }),
      refusal: sso,
    },
    { feature: 'Single sign-on', method: 'POST', path: () => '/sso/verify-domain', body: (teamId) => ({ teamId, domain: 'acme.example' }), refusal: sso },
    { feature: 'Single sign-on', method: 'DELETE', path: (teamId) => `/sso?teamId=${teamId}`, refusal: sso },
    { feature: 'Audit log', method: 'GET', path: (teamId) => `/audit?teamId=${teamId}`, refusal: audit },
    { feature: 'Audit log', method: 'GET', path: (teamId) => `/audit/export?teamId=${teamId}&format=csv`, refusal: audit },
    { feature: 'Audit log', method: 'GET', path: (teamId) => `/audit/export?teamId=${teamId}&format=json`, refusal: audit },
    { feature: 'Audit log', method: 'GET', path: (teamId) => `/audit/verify?teamId=${teamId}`, refusal: audit },
    { feature: 'Access review', method: 'GET', path: (teamId) => `/teams/${teamId}/access-review?format=json`, refusal: review },
    { feature: 'Access review', method: 'GET', path: (teamId) => `/teams/${teamId}/access-review?format=csv`, refusal: review },
  ];
}

for (const mode of testModes) {
  describe(`plan gating of Enterprise features (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let slack: FakeSlackWebhook;
    const admins = new Map<PlanSlug, { token: string; teamId: string }>();
    /** A call whose answer may be a file (an export) rather than JSON. */
    const call = async (method: string, route: string, token: string, body: unknown) => {
      const response = await fetch(`${spendgate.url}/api${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (response.headers.get('content-type') ?? '').startsWith('application/json') ? (JSON.parse(text) as { code?: string; message?: string }) : text };
    };

    beforeAll(async () => {
      slack = await startFakeSlackWebhook();
      spendgate = await startSpendgate(mode, `plan-gating-${mode}`);
      for (const plan of PLANS) {
        const { token, userId } = await signUp(spendgate.url, `gating-${plan}-${mode}@example.com`);
        if (plan !== 'free-trial') await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId, planSlug: plan, status: 'active', trialEnd: null });
        const team = await callApi(spendgate.url, 'POST', '/team/', { token, body: { name: `On ${plan}`, description: '' } });
        admins.set(plan, { token, teamId: team.body.data.id });
      }
    }, 120_000);
    afterAll(async () => {
      await spendgate?.close();
      await slack?.close();
    });

    it('refuses every Enterprise route to a team admin on every other plan with the feature’s message, and serves Enterprise', async () => {
      const outcomes: string[] = [];
      const expected: string[] = [];
      for (const route of gatedRoutes(slack)) {
        for (const plan of PLANS) {
          const { token, teamId } = admins.get(plan)!;
          const answer = await call(route.method, route.path(teamId), token, route.body?.(teamId));
          const body = answer.body;
          const code = typeof body === 'object' ? body.code : undefined;
          const name = `${route.feature}: ${route.method} ${route.path(':team')} on ${plan}`;
          if (plan === 'enterprise') {
            outcomes.push(`${name}: ${answer.status === 403 || code === 'plan_required' ? `refused ${answer.status} ${JSON.stringify(body)}` : 'served'}`);
            expected.push(`${name}: served`);
          } else {
            outcomes.push(`${name}: ${answer.status} ${code} ${typeof body === 'object' ? body.message : body}`);
            expected.push(`${name}: 403 plan_required ${route.refusal(plan)}`);
          }
        }
      }
      expect(outcomes).toEqual(expected);
    }, 120_000);
  });
}
