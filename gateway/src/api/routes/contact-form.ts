// /api/contact-form: the site's contact form — its definition (data[0].form_fields) and
// submissions, checked against that definition (errors come back as a list).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, ContactForm } from '../answers.ts';
import { ok } from '../reply.ts';
import { storedJson } from '../schemas.ts';

const Submission = storedJson(
  z.record(z.string().max(100, 'field names must be at most 100 characters'), z.unknown(), { error: 'must be an object of field values' }),
);

export const contactFormRoutes =
  (services: Pick<ControlPlaneServices, 'site'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/', { config: { public: true }, schema: { summary: 'The contact form definition', response: { 200: answer(z.array(ContactForm)) } } }, async () =>
      ok(await services.site.contactForms()),
    );
    api.post('/', { config: { public: true }, schema: { summary: 'Submit the contact form', body: Submission, response: { 201: answer(z.null()) } } }, async (request, reply) => {
      const message = await services.site.submitContactForm(request.body);
      return reply.code(201).send(ok(null, message));
    });
  };
