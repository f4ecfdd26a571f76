// /api/demo: a demo team with 90 days of sample usage for the signed-in user, one each,
// answered at once while its usage is recorded in the background.
import type { FastifyPluginAsync } from 'fastify';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, DemoTeam } from '../answers.ts';
import { ok } from '../reply.ts';
import { signedIn } from '../session.ts';

export const demoRoutes =
  (services: Pick<ControlPlaneServices, 'demo'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.post(
      '/team',
      {
        schema: {
          summary:
            'Create your demo team: three groups, six keys and 90 days of sample usage, recorded through the meter in the background (`filling`, a day at a time; GET /usage/team says how far) and never billed (409 if you have one)',
          response: { 201: answer(DemoTeam) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return ok(await services.demo.createDemoTeam(signedIn(request).userId), 'Demo team created: its sample usage is being recorded, a day at a time');
      },
    );
  };
