/**
 * The public site's API, in every run mode: subscription plans (from core's plan
 * terms), FAQs (public list, platform-admin edits), the dynamic contact form, and the
 * OpenAPI document generated from the route schemas.
 */
import { PLANS } from '@spendgate/core';
import { listContactSubmissions } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { codeIn, type MailSink, registerUser, startMailSink } from './support.ts';

for (const mode of testModes) {
  describe(`site content and plans (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;

    beforeAll(async () => {
      mail = await startMailSink();
      spendgate = await startSpendgate(mode, 'api-site', { env: { SMTP_URL: mail.url, PLATFORM_ADMIN_EMAILS: 'root@spendgate.test' } });
    });
    afterAll(async () => {
      await spendgate?.close();
      await mail?.close();
    });

    it('lists the plans from core in core’s order, prices in pounds, Enterprise without one', async () => {
      const answer = await callApi(spendgate.url, 'GET', '/subscription/plans');
      expect(answer.status).toBe(200);
      const plans = answer.body.data as { id: string; slug: string; name: string; price: number | null; features: string[]; createdAt: string; description: string }[];
      expect(plans.map((plan) => [plan.slug, plan.name, plan.price])).toEqual([
        ['free-trial', 'Free Trial', 0],
        ['developers', 'Developers', 29],
        ['growth', 'Growth', 99],
        ['enterprise', 'Enterprise', null],
      ]);
      expect(plans.map((plan) => plan.slug)).toEqual(PLANS.map((plan) => plan.slug));
      const created = plans.map((plan) => Date.parse(plan.createdAt));
      expect([...created].sort((a, b) => a - b)).toEqual(created);
      expect(new Set(created).size).toBe(4);
      for (const plan of plans) {
        expect(plan.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(plan.description.length).toBeGreaterThan(10);
      }
      const growth = plans.find((plan) => plan.slug === 'growth')!;
      expect(growth.features).toContain('25% uplift over base model cost on optimised keys');
      expect(growth.features).toContain('10 optimised keys included, then £3.00/key/month');
      expect(growth.features).toContain('5 seats free, then £8.00 to £6.00/user');
      expect(plans.find((plan) => plan.slug === 'enterprise')!.features).toContain('Spend alerts by e-mail, Slack, Teams and SMS');
    });

    it('keeps plan ids across restarts (seeded once, refreshed in place)', async () => {
      const before = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data;
      await spendgate.app.runtime.services.plans.seedPlans();
      const after = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data;
      expect(after).toEqual(before);
    });

    it('serves the seeded FAQs to anyone, one of them with a bullet list', async () => {
      const answer = await callApi(spendgate.url, 'GET', '/admin/faqs');
      expect(answer.status).toBe(200);
      const faqs = answer.body.data as { id: string; question: string; answer: string }[];
      expect(faqs.length).toBeGreaterThan(4);
      expect(faqs[0]).toMatchObject({ id: expect.any(String), question: 'What is Spendgate?' });
      expect(faqs.some((faq) => faq.answer.includes('\n• '))).toBe(true);
    });

    it('lets only a verified platform admin edit FAQs', async () => {
      const member = await registerUser(spendgate.url, 'someone@spendgate.test');
      const refused = await callApi(spendgate.url, 'POST', '/admin/faqs', { token: member.token, body: { question: 'Q?', answer: 'A.' } });
      expect([refused.status, refused.body.message]).toEqual([403, 'Only platform admins can do this']);
      const anonymous = await callApi(spendgate.url, 'POST', '/admin/faqs', { body: { question: 'Q?', answer: 'A.' } });
      expect(anonymous.status).toBe(401);

      const unverifiedRoot = await registerUser(spendgate.url, 'root@spendgate.test', { unverified: true });
      const unverified = await callApi(spendgate.url, 'POST', '/admin/faqs', { token: unverifiedRoot.token, body: { question: 'Q?', answer: 'A.' } });
      expect(unverified.status).toBe(403);
      const code = codeIn(await mail.next('root@spendgate.test'));
      const verified = await callApi(spendgate.url, 'POST', '/auth/verify-email-otp', { token: unverifiedRoot.token, body: { email: 'root@spendgate.test', otp: code } });
      expect(verified.status).toBe(200);
      const rootToken: string = verified.body.data.token;

      const created = await callApi(spendgate.url, 'POST', '/admin/faqs', {
        token: rootToken,
        body: { question: 'Can I cap spend per key?', answer: 'Yes: budgets apply to keys, groups and teams.' },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      const invalid = await callApi(spendgate.url, 'POST', '/admin/faqs', { token: rootToken, body: { question: '', answer: 'x' } });
      expect([invalid.status, invalid.body.field]).toEqual([400, 'question']);
      const updated = await callApi(spendgate.url, 'PUT', `/admin/faqs/${id}`, { token: rootToken, body: { answer: 'Yes.' } });
      expect(updated.body.data).toMatchObject({ id, question: 'Can I cap spend per key?', answer: 'Yes.' });
      const list = (await callApi(spendgate.url, 'GET', '/admin/faqs')).body.data as { id: string }[];
      expect(list.at(-1)!.id).toBe(id);
      expect((await callApi(spendgate.url, 'DELETE', `/admin/faqs/${id}`, { token: rootToken })).status).toBe(200);
      expect((await callApi(spendgate.url, 'DELETE', `/admin/faqs/${id}`, { token: rootToken })).status).toBe(404);
      expect((await callApi(spendgate.url, 'PUT', '/admin/faqs/not-an-id', { token: rootToken, body: { answer: 'x' } })).body.field).toBe('id');
    });

    it('serves the contact form definition in the spec’s shape', async () => {
      const answer = await callApi(spendgate.url, 'GET', '/contact-form/');
      expect(answer.status).toBe(200);
      expect(answer.body.success).toBe(true);
      const fields = answer.body.data[0].form_fields.fields as { element: string; attributes: Record<string, unknown>; settings: Record<string, unknown>; uniqElKey: string }[];
      expect(fields.map((field) => field.element)).toEqual(['input_name', 'input_email', 'input_text', 'select', 'textarea', 'custom_submit_button']);
      expect(fields.find((field) => field.element === 'textarea')!.attributes.rows).toBe(4);
      const button = fields.at(-1)!;
      expect(button.settings).toMatchObject({ button_ui: { text: 'Get Early Access' }, normal_styles: { minWidth: '100%' } });
      expect(fields[0]!.settings).toMatchObject({ label: 'Full Name', validation_rules: { required: { value: true } } });
      expect(fields.every((field) => typeof field.uniqElKey === 'string')).toBe(true);
    });

    it('checks a submission against the definition, lists every problem, and stores a good one', async () => {
      const bad = await callApi(spendgate.url, 'POST', '/contact-form/', {
        body: { names: '', email: 'not-an-email', company: 'x'.repeat(151), team_size: '7', message: 42 },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.success).toBe(false);
      expect((bad.body as unknown as { errors: string[] }).errors).toEqual([
        'Full Name is required',
        'Work Email must be a valid email',
        'Company must be at most 150 characters',
        'Team Size must be one of the listed options',
        'Message must be text',
      ]);
      const notObject = await callApi(spendgate.url, 'POST', '/contact-form/', { body: ['a'] });
      expect([notObject.status, notObject.body.field]).toEqual([400, 'body']);

      const good = await callApi(spendgate.url, 'POST', '/contact-form/', {
        body: { names: ' Ada Lovelace ', email: 'ada@example.com', team_size: '11-50', unknown: 'dropped' },
      });
      expect(good.status).toBe(201);
      expect(good.body.message).toBe('Thank you! We have your details and will be in touch soon.');
      const formId = (await callApi(spendgate.url, 'GET', '/contact-form/')).body.data[0].id;
      const stored = await listContactSubmissions(spendgate.app.runtime.stores.sql.db, formId);
      expect(stored.map((row) => row.submitted_values)).toEqual([{ names: 'Ada Lovelace', email: 'ada@example.com', team_size: '11-50' }]);
    });

    it('publishes an OpenAPI document generated from the route schemas, and a page', async () => {
      const document = await (await fetch(`${spendgate.url}/api/docs/openapi.json`)).json();
      expect(document.openapi).toBe('3.1.0');
      const register = document.paths['/api/auth/register'].post;
      expect(register.requestBody.content['application/json'].schema.required).toEqual(['email', 'password', 'name']);
      expect(register.parameters).toEqual([expect.objectContaining({ name: 'planId', in: 'query', required: false })]);
      expect(register.security).toEqual([]);
      expect(document.paths['/api/synthetic-group/member/{groupId}/{userId}'].patch.parameters.map((p: { name: string }) => p.name)).toEqual(['groupId', 'userId']);
      expect(document.paths['/api/team'].post.security).toEqual([{ bearer: [] }]);
      for (const path of ['/api/provider/connections/status/{id}', '/api/audit', '/api/contact-form', '/api/subscription/plans']) {
        expect(Object.keys(document.paths)).toContain(path);
      }
      const page = await fetch(`${spendgate.url}/api/docs`);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('docs/openapi.json');
    });
  });
}
