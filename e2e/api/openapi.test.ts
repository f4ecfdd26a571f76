/**
 * The OpenAPI document describes what the API really answers: every operation has a
 * typed `data` (not `{}`) and the one error envelope; real answers of a tenant's whole
 * life (sign-up, team, connection, group, key, budget, prices, audit, failures)
 * validate against the schema documented for their operation and status; the server
 * logs no answer that misses its schema; and the console's answer types accept what
 * the documented schemas allow.
 */
import { PassThrough } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { AdvisorInsight, AdvisorInsights, AdvisorRun, AdvisorWordingSetting } from '../../console/src/api/advisor/types.ts';
import type { OtpAnswer, ProfileAnswer, SessionAnswer } from '../../console/src/api/auth/types.ts';
import type { AlertChannel, AlertEvent } from '../../console/src/api/alerts/types.ts';
import type { Budget } from '../../console/src/api/budgets/types.ts';
import type { TeamRetention } from '../../console/src/api/compliance/types.ts';
import type { ContactFormAnswer } from '../../console/src/api/contact-form/types.ts';
import type { Connection, ConnectionTested, ListedConnection, Provider } from '../../console/src/api/connections/types.ts';
import type { Faq } from '../../console/src/api/faqs/types.ts';
import type { AddedMembers, GroupInvitation, MemberRemoved, MemberRoleChanged, SyntheticGroup } from '../../console/src/api/groups/types.ts';
import type { CreatedKey, GroupWithKeys, IssuedKey, RevokedKey } from '../../console/src/api/keys/types.ts';
import type { StoredForecast } from '../../console/src/api/forecast/types.ts';
import type { GpuExporter, GpuHeatmap, GpuIdleList, GpuIngestKeyIssued, GpuPower, GpuSettings, GpuUtilization, GpuWaste } from '../../console/src/api/gpu/types.ts';
import type { TeamOverview } from '../../console/src/api/overview/types.ts';
import type { PromptCapture, PromptCaptureSettings, RequestDetail } from '../../console/src/api/requests/types.ts';
import type { CheckoutSession, Invoice, InvoiceDetail, Plan, SubscriptionUsage } from '../../console/src/api/subscription/types.ts';
import type { Team, TeamInvitation, TeamInvitationAccepted, TeamInvitationPreview, TeamMember, TeamMemberRemoved, TeamSeats } from '../../console/src/api/team/types.ts';
import type { DemoTeam, RequestLogPage, UsageDistribution, UsageMonthToDate, UsageSeries, UsageTotals } from '../../console/src/api/usage/types.ts';
import type * as Answers from '../../gateway/src/api/answers.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { mailedCode, mailedInvitationToken } from '../support/sign-up.ts';
import { type ApiAnswer, callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { daysAgo } from '../support/usage-events.ts';

type JsonSchema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** A schema that says something: a type, a constant, a choice or a reference. */
const typed = (schema: JsonSchema | undefined) =>
  schema !== undefined && ['type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf', '$ref'].some((keyword) => keyword in schema);

for (const mode of testModes) {
  describe(`the OpenAPI document tells what each answer is (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let document: OpenApiDocument;
    const log: string[] = [];
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const checked: string[] = [];

    /** The documented schema of an answer: the operation whose path template matches (literal segments first), at the answer's status. */
    function documentedSchema(method: string, route: string, status: number): JsonSchema {
      const path = `/api${route.split('?')[0]}`.replace(/\/$/, '');
      const templates = Object.keys(document.paths)
        .filter((template) => document.paths[template]![method.toLowerCase()])
        .filter((template) => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(path))
        .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
      expect(templates, `${method} ${path} is documented`).not.toEqual([]);
      const responses = document.paths[templates[0]!]![method.toLowerCase()]!.responses;
      const schema = (responses[String(status)] ?? responses.default)!.content!['application/json']!.schema;
      return schema.$ref === '#/components/schemas/ErrorAnswer' ? document.components.schemas.ErrorAnswer! : schema;
    }

    /** Calls the API and checks the answer against its documented schema (and the status expected). */
    async function call(method: string, route: string, expected: number, options: { token?: string; body?: unknown } = {}): Promise<ApiAnswer> {
      const answer = await callApi(spendgate.url, method, route, options);
      expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBe(expected);
      const validate = ajv.compile(documentedSchema(method, route, answer.status));
      expect(validate(answer.body), `${method} ${route} (${answer.status}): ${JSON.stringify(validate.errors)}\n${JSON.stringify(answer.body)}`).toBe(true);
      checked.push(`${method} ${route.split('?')[0]}`);
      return answer;
    }

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      const logStream = new PassThrough();
      logStream.on('data', (chunk: Buffer) => log.push(chunk.toString()));
      spendgate = await startSpendgate(mode, 'api-openapi', { env: { LOG_LEVEL: 'error' }, logStream });
      document = (await (await fetch(`${spendgate.url}/api/docs/openapi.json`)).json()) as OpenApiDocument;
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    /** A success that is a file: its schema a string in each media type it may have. */
    const isDownload = (response: Operation['responses'][string]) => {
      const media = Object.values(response.content ?? {});
      return media.length > 0 && media.every((type) => type.schema.type === 'string');
    };

    it('gives every operation a typed data schema (or, for a file download, its media type) for its success and the error envelope for its failures', () => {
      const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
      expect(operations.length).toBeGreaterThan(50);
      const successesOf = (operation: Operation) => Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      const downloads = operations.filter(({ operation }) => successesOf(operation).length > 0 && successesOf(operation).every(([, response]) => isDownload(response)));
      expect(downloads.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(['GET /api/audit/export', 'GET /api/usage/export']);
      const untyped = operations.filter(({ operation }) => {
        if (downloads.some((download) => download.operation === operation)) return false;
        const successes = successesOf(operation);
        return (
          successes.length === 0 ||
          successes.some(([, response]) => {
            const envelope = response.content?.['application/json']?.schema as { properties?: Record<string, JsonSchema> } | undefined;
            return !typed(envelope?.properties?.data) || envelope?.properties?.success?.const !== true;
          })
        );
      });
      expect(untyped.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual([]);
      const failures = operations.map(({ operation }) => [operation.responses['400'], operation.responses.default]);
      expect(failures.flat().every((response) => response?.content?.['application/json']?.schema.$ref === '#/components/schemas/ErrorAnswer')).toBe(true);
      const error = document.components.schemas.ErrorAnswer as { properties: Record<string, JsonSchema>; required: string[] };
      expect(error.properties.success).toMatchObject({ const: false });
      expect(error.required).toEqual(expect.arrayContaining(['success', 'data', 'message', 'code', 'requestId']));
    });

    it('answers what it documents, through a tenant’s whole life and its failures', async () => {
      await call('GET', '/admin/faqs', 200);
      await call('GET', '/contact-form/', 200);
      await call('POST', '/contact-form/', 400, { body: {} });
      await call('POST', '/auth/check-email', 200, { body: { email: 'newcomer@example.com' } });
      await call('POST', '/auth/send-register-email-otp', 200, { body: { email: 'newcomer@example.com' } });

      const plans = (await call('GET', '/subscription/plans', 200)).body.data as { id: string; slug: string }[];
      const growth = plans.find((plan) => plan.slug === 'growth')!;
      const email = 'openapi@example.com';
      const password = 'a long and unusual passphrase';
      const registered = await call('POST', `/auth/register?planId=${growth.id}`, 201, { body: { email, password, name: 'Ada' } });
      await call('GET', '/team/', 403, { token: registered.body.data.token });
      const verified = await call('POST', '/auth/verify-email-otp', 200, {
        token: registered.body.data.token,
        body: { email, otp: await mailedCode(spendgate.url, email) },
      });
      const login = await call('POST', '/auth/login', 200, { body: { email, password } });
      await call('POST', '/auth/login', 401, { body: { email, password: 'not the password' } });
      const token = login.body.data.token as string;
      expect(verified.body.data.token).toEqual(expect.any(String));
      const as = (method: string, route: string, expected: number, body?: unknown) => call(method, route, expected, { token, body });

      await as('GET', '/auth/profile', 200);
      await as('PATCH', '/auth/update-profile', 200, { name: 'Ada Lovelace' });
      await as('PATCH', '/auth/update-metadata', 200, { metadata: { theme: 'dark' } });
      await as('GET', '/subscription/checkout/cs_test_unknown', 404);

      const team = (await as('POST', '/team/', 201, { name: 'Analytical', description: 'Engines' })).body.data;
      await as('GET', '/team/', 200);
      await as('PATCH', `/team/${team.id}`, 200, { timeZone: 'Europe/London' });
      await as('GET', `/team/members/${team.id}`, 200);
      const teamInvitation = (await as('POST', '/team/invite', 201, { teamId: team.id, email: 'babbage@example.com', role: 'MEMBER' })).body.data;
      await as('GET', `/team/${team.id}/seats`, 200);
      await call('POST', '/team/invitation', 200, { body: { token: await mailedInvitationToken(spendgate.url, 'babbage@example.com') } });
      await call('POST', '/team/invitation', 400, { body: { token: 'x'.repeat(43) } });
      await as('GET', `/team/${team.id}/invitations`, 200);
      await as('POST', `/team/invitations/${teamInvitation.id}/resend`, 200);
      await as('DELETE', `/team/invitations/${teamInvitation.id}/revoke`, 200);
      await as('PATCH', '/team/role', 404, { teamId: team.id, userId: crypto.randomUUID(), role: 'MEMBER' });

      await as('GET', '/provider/', 200);
      const connection = (
        await as('POST', '/provider/connections', 201, { teamId: team.id, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url })
      ).body.data.newConnection;
      await as('POST', '/provider/', 201, { teamId: team.id, name: 'own models', baseUrl: fake.url });
      await as('GET', '/provider/connections', 200);
      await as('GET', `/provider/connections/${connection.id}`, 200);
      await as('PUT', `/provider/connections/${connection.id}`, 200, { name: 'fake OpenAI' });
      await as('PATCH', `/provider/connections/status/${connection.id}`, 200, { statusValue: 'active' });
      await as('POST', '/provider/test/connection', 200, { connectionId: connection.id });
      await as('GET', `/provider/connections/${connection.id}/usage`, 200);

      const group = (await as('POST', '/synthetic-group', 201, { teamId: team.id, name: 'Research', description: '' })).body.data;
      await as('GET', '/synthetic-group', 200);
      await as('PUT', `/synthetic-group/${group.id}`, 200, { description: 'Difference engines' });
      const key = (
        await as('POST', `/synthetic-group/provider-key/create/${group.id}`, 201, {
          name: 'research',
          kind: 'byok',
          connectionId: connection.id,
          settings: { rateLimit: { requestsPerMinute: 60 }, timeoutMs: 10_000 },
        })
      ).body.data.providerKey;
      await as('PATCH', `/synthetic-group/provider-key/${key.id}`, 200, { name: 'research key' });
      await as('GET', `/synthetic-group/${group.id}`, 200);
      await as('GET', `/synthetic-group/member/${group.id}`, 200);
      const invitation = (await as('POST', `/synthetic-group/${group.id}/invite`, 201, { email: 'lovelace@example.com' })).body.data;
      await as('GET', `/synthetic-group/${group.id}/invitations`, 200);
      await as('POST', `/synthetic-group/invitations/${invitation.id}/resend`, 200);
      await as('DELETE', `/synthetic-group/invitations/${invitation.id}/revoke`, 200);
      await as('GET', `/synthetic-group/${group.id}/usage`, 200);
      // Within the plan's look-back (beyond it is a 403, usage-analytics.test.ts).
      await as('GET', `/usage/group?groupId=${group.id}&startDate=${daysAgo(6)}&endDate=${daysAgo(0)}`, 200);
      for (const format of ['csv', 'focus']) {
        const route = `/usage/export?teamId=${team.id}&format=${format}&granularity=request`;
        const file = await fetch(`${spendgate.url}/api${route}`, { headers: { authorization: `Bearer ${token}` } });
        expect(file.status, route).toBe(200);
        const documented = Object.keys(document.paths['/api/usage/export']!.get!.responses['200']!.content!);
        expect([file.headers.get('content-type')]).toEqual(documented);
        expect((await file.text()).split('\r\n')[0]).toContain(format === 'csv' ? 'request_id' : 'BilledCost');
        checked.push(`GET ${route.split('?')[0]}`);
      }
      await as('GET', `/usage/export?teamId=${team.id}&format=pdf`, 400);

      const budget = (await as('POST', '/budgets', 201, { scope: 'group', scopeId: group.id, amount: '12.50', window: 'month', mode: 'hard' })).body.data;
      await as('POST', '/budgets', 201, { scope: 'team', scopeId: team.id, amount: 100, window: 'total', mode: 'soft' });
      await as('POST', '/budgets', 400, { scope: 'group', scopeId: group.id, amount: '-1', window: 'month', mode: 'hard' });
      await as('GET', `/budgets?teamId=${team.id}`, 200);
      await as('PATCH', `/budgets/${budget.id}?teamId=${team.id}`, 200, { amount: '20' });
      const price = (
        await as('PUT', '/pricing/overrides', 200, { teamId: team.id, provider: 'openai', model: 'house-model', inputPerMTok: '1.25', outputPerMTok: 10 })
      ).body.data;
      await as('GET', `/pricing/overrides?teamId=${team.id}`, 200);
      await as('PUT', '/pricing/unpriced-models', 200, { teamId: team.id, allowUnpricedModels: true });
      await as('GET', `/audit?teamId=${team.id}`, 403);
      await as('GET', `/audit/retention/${team.id}`, 200);
      await as('PUT', `/audit/retention/${team.id}`, 200, { auditRetentionDays: 400 });
      await as('PUT', `/audit/retention/${team.id}`, 400, { auditRetentionDays: 7 });
      const profile = (await as('GET', '/auth/profile', 200)).body.data.user as { id: string };
      await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: profile.id, planSlug: 'enterprise', status: 'active', trialEnd: null });
      await as('GET', `/audit?teamId=${team.id}`, 200);
      await as('GET', `/audit/verify?teamId=${team.id}`, 200);
      for (const format of ['csv', 'json']) {
        const file = await fetch(`${spendgate.url}/api/audit/export?teamId=${team.id}&format=${format}`, { headers: { authorization: `Bearer ${token}` } });
        expect(file.status).toBe(200);
        expect(Object.keys(document.paths['/api/audit/export']!.get!.responses['200']!.content!)).toContain(file.headers.get('content-type'));
        await file.text();
        checked.push('GET /audit/export');
      }
      await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: profile.id, planSlug: 'growth', status: 'active', trialEnd: null });

      await as('DELETE', `/pricing/overrides/${price.id}?teamId=${team.id}`, 200);
      await as('DELETE', `/budgets/${budget.id}?teamId=${team.id}`, 200);
      await as('DELETE', `/synthetic-group/provider-key/${key.id}`, 200);
      await as('DELETE', `/synthetic-group/${group.id}`, 200);
      await as('DELETE', `/provider/connections/${connection.id}`, 200);
      await as('PATCH', '/auth/update-password', 200, { currentPassword: password, newPassword: 'another long passphrase' });
      await call('GET', '/team/', 401, { token });

      expect(new Set(checked).size).toBeGreaterThan(45);
      expect(log.filter((line) => line.includes('does not match its documented schema'))).toEqual([]);
    });
  });
}

describe('the console reads answers as the API documents them', () => {
  it('each console answer type accepts every answer its schema allows', () => {
    type Wire<Schema extends z.ZodType> = z.input<Schema>;
    expectTypeOf<Wire<typeof Answers.Session>>().toExtend<SessionAnswer>();
    expectTypeOf<Wire<typeof Answers.CodeVerified>>().toExtend<OtpAnswer>();
    expectTypeOf<Wire<typeof Answers.Faq>>().toExtend<Faq>();
    expectTypeOf<Wire<typeof Answers.Plan>>().toExtend<Plan>();
    expectTypeOf<Wire<typeof Answers.CheckoutSession>>().toExtend<CheckoutSession>();
    expectTypeOf<Wire<typeof Answers.SubscriptionUsage>>().toExtend<SubscriptionUsage>();
    expectTypeOf<Wire<typeof Answers.Invoice>>().toExtend<Invoice>();
    expectTypeOf<Wire<typeof Answers.InvoiceDetail>>().toExtend<InvoiceDetail>();
    expectTypeOf<Wire<typeof Answers.Team>>().toExtend<Team>();
    expectTypeOf<Wire<typeof Answers.TeamMember>>().toExtend<TeamMember>();
    expectTypeOf<Wire<typeof Answers.TeamInvitation>>().toExtend<TeamInvitation>();
    expectTypeOf<Wire<typeof Answers.TeamInvitationAccepted>>().toExtend<TeamInvitationAccepted>();
    expectTypeOf<Wire<typeof Answers.TeamInvitationPreview>>().toExtend<TeamInvitationPreview>();
    expectTypeOf<Wire<typeof Answers.TeamMemberRemoved>>().toExtend<TeamMemberRemoved>();
    expectTypeOf<Wire<typeof Answers.TeamSeats>>().toExtend<TeamSeats>();
    expectTypeOf<Wire<typeof Answers.Profile>>().toExtend<ProfileAnswer>();
    expectTypeOf<Wire<typeof Answers.Provider>>().toExtend<Provider>();
    expectTypeOf<Wire<typeof Answers.Connection>>().toExtend<Connection>();
    expectTypeOf<Wire<typeof Answers.ListedConnection>>().toExtend<ListedConnection>();
    expectTypeOf<Wire<typeof Answers.NewConnection>>().toExtend<{ newConnection: Connection }>();
    expectTypeOf<Wire<typeof Answers.ConnectionTested>>().toExtend<ConnectionTested>();
    expectTypeOf<Wire<typeof Answers.UsageTotals>>().toExtend<UsageTotals>();
    expectTypeOf<Wire<typeof Answers.UsageSeries>>().toExtend<UsageSeries>();
    expectTypeOf<Wire<typeof Answers.UsageMonthToDate>>().toExtend<UsageMonthToDate>();
    expectTypeOf<Wire<typeof Answers.UsageDistribution>>().toExtend<UsageDistribution>();
    expectTypeOf<Wire<typeof Answers.RequestLogPage>>().toExtend<RequestLogPage>();
    expectTypeOf<Wire<typeof Answers.RequestLogEntry>>().toExtend<RequestDetail>();
    expectTypeOf<Wire<typeof Answers.PromptCaptureView>>().toExtend<PromptCapture>();
    expectTypeOf<Wire<typeof Answers.PromptCaptureSettings>>().toExtend<PromptCaptureSettings>();
    expectTypeOf<Wire<typeof Answers.DemoTeam>>().toExtend<DemoTeam>();
    expectTypeOf<Wire<typeof Answers.TeamOverview>>().toExtend<TeamOverview>();
    expectTypeOf<Wire<typeof Answers.StoredForecast>>().toExtend<StoredForecast>();
    expectTypeOf<Wire<typeof Answers.GroupInvitationAccepted>>().toExtend<{ group: SyntheticGroup }>();
    expectTypeOf<Wire<typeof Answers.Group>>().toExtend<SyntheticGroup>();
    expectTypeOf<Wire<typeof Answers.AddedMembers>>().toExtend<AddedMembers>();
    expectTypeOf<Wire<typeof Answers.GroupMemberRole>>().toExtend<MemberRoleChanged>();
    expectTypeOf<Wire<typeof Answers.GroupMemberRemoved>>().toExtend<MemberRemoved>();
    expectTypeOf<Wire<typeof Answers.GroupInvitation>>().toExtend<GroupInvitation>();
    expectTypeOf<Wire<typeof Answers.Group>>().toExtend<GroupWithKeys>();
    expectTypeOf<Wire<typeof Answers.CreatedKey>>().toExtend<CreatedKey>();
    expectTypeOf<Wire<typeof Answers.IssuedKey>>().toExtend<IssuedKey>();
    expectTypeOf<Wire<typeof Answers.RevokedKey>>().toExtend<RevokedKey>();
    expectTypeOf<Wire<typeof Answers.AlertChannel>>().toExtend<AlertChannel>();
    expectTypeOf<Wire<typeof Answers.AlertEvent>>().toExtend<AlertEvent>();
    expectTypeOf<Wire<typeof Answers.Budget>>().toExtend<Budget>();
    expectTypeOf<Wire<typeof Answers.AdvisorInsights>>().toExtend<AdvisorInsights>();
    expectTypeOf<Wire<typeof Answers.AdvisorRun>>().toExtend<AdvisorRun>();
    expectTypeOf<Wire<typeof Answers.AdvisorInsight>>().toExtend<AdvisorInsight>();
    expectTypeOf<Wire<typeof Answers.AdvisorWordingSetting>>().toExtend<AdvisorWordingSetting>();
    expectTypeOf<Wire<typeof Answers.GpuSettings>>().toExtend<GpuSettings>();
    expectTypeOf<Wire<typeof Answers.TeamRetention>>().toExtend<TeamRetention>();
    expectTypeOf<Wire<typeof Answers.GpuIngestKeyIssued>>().toExtend<GpuIngestKeyIssued>();
    expectTypeOf<Wire<typeof Answers.GpuExporter>>().toExtend<GpuExporter>();
    expectTypeOf<Wire<typeof Answers.GpuUtilization>>().toExtend<GpuUtilization>();
    expectTypeOf<Wire<typeof Answers.GpuHeatmap>>().toExtend<GpuHeatmap>();
    expectTypeOf<Wire<typeof Answers.GpuIdleList>>().toExtend<GpuIdleList>();
    expectTypeOf<Wire<typeof Answers.GpuPower>>().toExtend<GpuPower>();
    expectTypeOf<Wire<typeof Answers.GpuWaste>>().toExtend<GpuWaste>();
    expectTypeOf<Wire<ReturnType<typeof Answers.answer<z.ZodNull>>> | Wire<typeof Answers.ErrorAnswer>>().toExtend<ContactFormAnswer>();
  });
});
