// /api/admin/faqs: the FAQs the site shows (public), edited by platform admins.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Deleted, Faq } from '../answers.ts';
import { ok } from '../reply.ts';
import { id, multilineText, text } from '../schemas.ts';

const Question = text(500).min(1, 'must not be empty');
const Answer = multilineText(5000).min(1, 'must not be empty');
const Position = z.number().int('must be a whole number').min(0, 'must not be negative').max(1_000_000, 'must be at most 1000000');
const FaqBody = z.object({ question: Question, answer: Answer, position: Position.optional() });
const FaqChanges = z
  .object({ question: Question.optional(), answer: Answer.optional(), position: Position.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change question, answer or position' });
const FaqParams = z.object({ id: id('FAQ') });

export const faqRoutes =
  (services: Pick<ControlPlaneServices, 'site'>, platformAdmin: (request: FastifyRequest) => Promise<void>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/', { config: { public: true }, schema: { summary: 'List FAQs', response: { 200: answer(z.array(Faq)) } } }, async () => ok(await services.site.listFaqs()));
    api.post('/', { preHandler: platformAdmin, schema: { summary: 'Create an FAQ (platform admins)', body: FaqBody, response: { 201: answer(Faq) } } }, async (request, reply) =>
      reply.code(201).send(ok(await services.site.createFaq(request.body), 'FAQ created')),
    );
    api.put(
      '/:id',
      { preHandler: platformAdmin, schema: { summary: 'Update an FAQ (platform admins)', params: FaqParams, body: FaqChanges, response: { 200: answer(Faq) } } },
      async (request) => ok(await services.site.updateFaq(request.params.id, request.body), 'FAQ updated'),
    );
    api.delete('/:id', { preHandler: platformAdmin, schema: { summary: 'Delete an FAQ (platform admins)', params: FaqParams, response: { 200: answer(Deleted) } } }, async (request) => {
      await services.site.deleteFaq(request.params.id);
      return ok({ id: request.params.id }, 'FAQ deleted');
    });
  };
