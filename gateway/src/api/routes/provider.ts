// /api/provider: the providers Spendgate can call, and a team's connections to them.
// The API key is write-only: answers show only its last four characters.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { CONNECTION_STATUSES } from '../../control/connections.ts';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Connection, ConnectionStatusSet, ConnectionTested, Deleted, ListedConnection, NewConnection, Provider, UsageTotals } from '../answers.ts';
import { ok } from '../reply.ts';
import { DateRangeQuery, id, Name, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const ApiKey = text(4096).min(1, 'must not be empty');
const BaseUrl = z.url('must be a valid URL').max(2048, 'must be at most 2048 characters');
const Options = z.record(text(100), text(500), { error: 'must be an object of text settings' });
const ConnectionBody = z.object({
  teamId: id('team'),
  provider: text(100).min(1, 'must not be empty'),
  name: Name,
  apiKey: ApiKey,
  baseUrl: BaseUrl.optional(),
  options: Options.optional(),
});
const ConnectionChanges = z
  .object({ name: Name.optional(), apiKey: ApiKey.optional(), baseUrl: BaseUrl.optional(), options: Options.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change name, apiKey, baseUrl or options' });
const ConnectionParams = z.object({ id: id('connection') });
/** A team's own model server (BYOM): an OpenAI-compatible endpoint, often without a key. */
const ByomBody = z.object({ teamId: id('team'), name: Name, baseUrl: BaseUrl, apiKey: ApiKey.optional() });
const BYOM_PROVIDER = 'openai-compatible';
const ListQuery = z.object({ teamId: id('team').optional() });
const StatusBody = z.object({ statusValue: z.enum(CONNECTION_STATUSES, { error: `must be one of ${CONNECTION_STATUSES.join(', ')}` }) });
const TestBody = z.object({
  connectionId: id('connection').optional(),
  teamId: id('team').optional(),
  provider: text(100).min(1, 'must not be empty').optional(),
  apiKey: ApiKey.optional(),
  baseUrl: BaseUrl.optional(),
});

export const providerRoutes =
  (services: Pick<ControlPlaneServices, 'connections'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const { connections } = services;
    api.get('/', { schema: { summary: 'Supported providers: auth fields, base URL rules, models', response: { 200: answer(z.array(Provider)) } } }, async () => ok(connections.providers()));
    api.post('/', { schema: { summary: 'Add your own model endpoint (BYOM, team admins)', body: ByomBody, response: { 201: answer(Connection) } } }, async (request, reply) => {
      const { apiKey, ...byom } = request.body;
      const provider = await connections.create(signedIn(request).userId, { ...byom, provider: BYOM_PROVIDER, apiKey: apiKey ?? '' });
      return reply.code(201).send(ok(provider, 'Provider created'));
    });
    api.get('/connections', { schema: { summary: 'Connections of your teams (or of one team), each with this month’s requests and cost', querystring: ListQuery, response: { 200: answer(z.array(ListedConnection)) } } }, async (request) =>
      ok(await connections.list(signedIn(request).userId, request.query.teamId)),
    );
    api.post('/connections', { schema: { summary: 'Connect a provider (team admins)', body: ConnectionBody, response: { 201: answer(NewConnection) } } }, async (request, reply) =>
      reply.code(201).send(ok({ newConnection: await connections.create(signedIn(request).userId, request.body) }, 'Connection created')),
    );
    api.get('/connections/:id', { schema: { summary: 'One connection', params: ConnectionParams, response: { 200: answer(Connection) } } }, async (request) =>
      ok(await connections.get(signedIn(request).userId, request.params.id)),
    );
    api.put('/connections/:id', { schema: { summary: 'Edit a connection (team admins)', params: ConnectionParams, body: ConnectionChanges, response: { 200: answer(Connection) } } }, async (request) =>
      ok(await connections.update(signedIn(request).userId, request.params.id, request.body), 'Connection updated'),
    );
    api.delete('/connections/:id', { schema: { summary: 'Delete a connection (team admins)', params: ConnectionParams, response: { 200: answer(Deleted) } } }, async (request) =>
      ok(await connections.remove(signedIn(request).userId, request.params.id), 'Connection deleted'),
    );
    api.patch('/connections/status/:id', { schema: { summary: 'Enable or disable a connection (team admins)', params: ConnectionParams, body: StatusBody, response: { 200: answer(ConnectionStatusSet) } } }, async (request) =>
      ok(await connections.setStatus(signedIn(request).userId, request.params.id, request.body.statusValue), 'Connection status updated'),
    );
    api.post(
      '/test/connection',
      { schema: { summary: 'Try a stored connection, or unsaved settings for a team, with a cheap live call (team admins; rate-limited)', body: TestBody, response: { 200: answer(ConnectionTested) } } },
      async (request) => ok(await connections.test({ userId: signedIn(request).userId, ip: request.ip }, request.body), 'Connection verified'),
    );
    api.get('/connections/:id/usage', { schema: { summary: 'Usage totals through one connection over a date range (the team’s usage: its admins), cost in GBP and USD', params: ConnectionParams, querystring: DateRangeQuery, response: { 200: answer(UsageTotals) } } }, async (request) =>
      ok(await connections.usage(signedIn(request).userId, request.params.id, request.query)),
    );
  };
