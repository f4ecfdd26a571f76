// /api/auth: register and sign in.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { useZod } from '../../zod-provider.ts';
import { ok } from '../envelope.ts';
import type { ApiDeps } from '../index.ts';

const Email = z.string().trim().toLowerCase().pipe(z.email('must be a valid email'));
const RegisterBody = z.object({
  email: Email,
  password: z.string().min(8, 'must be at least 8 characters').max(256),
  name: z.string().trim().min(1, 'must not be empty').max(200),
});
const LoginBody = z.object({ email: Email, password: z.string().min(1, 'must not be empty') });

export const authRoutes =
  (deps: Pick<ApiDeps, 'accounts'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.post('/register', { schema: { body: RegisterBody } }, async (request, reply) => {
      return reply.code(201).send(ok(await deps.accounts.register(request.body), 'Registration successful'));
    });
    api.post('/login', { schema: { body: LoginBody } }, async (request) => {
      return ok(await deps.accounts.login(request.body), 'Login successful');
    });
  };
