/**
 * The adversarial fuzzer, in every run mode. Control plane: driven by the OpenAPI
 * document of the running Spendgate (GET /api/docs/openapi.json) — for every operation,
 * requests built from its path, query and body schemas, valid ones first, then mutations
 * (wrong types, NUL and control characters, huge strings and numbers, deep nesting,
 * missing and extra fields, bad ids, bad JSON, bad sessions). Data plane: every /v1
 * surface with keys whose connections point at the local OpenAI, Anthropic and Gemini
 * fakes, valid bodies and the same mutations. Every answer must be below 500, within
 * 2 s, and carry no header with more than 512 characters of what the request sent.
 * Seeded (FUZZ_SEED, default 19): the same seed sends the same requests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { insertGroupMember, insertTeamMember, insertUser } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueByokKey, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic-provider.ts';
import { type FakeGemini, startFakeGemini } from '../fakes/gemini-provider.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import {
  BAD_IDS,
  bodyMutations,
  echoedLength,
  type Json,
  type JsonSchema,
  MUTATIONS,
  type Random,
  seededRandom,
  toJsonText,
  type ValueHints,
  validValue,
  WHOLE_BODY_MUTATIONS,
} from './fuzzer.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 19);
const MAX_ANSWER_MS = 2_000;
const MAX_ECHO_CHARACTERS = 512;
const CONCURRENCY = 4;
/** The control plane's caller, a platform admin too (FAQs). */
const CONTROL_PLANE_EMAIL = 'fuzz-control-plane@example.com';

interface FuzzRequest {
  /** What the request tries, for the failure report. */
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

interface Outcome {
  request: FuzzRequest;
  status: number;
  ms: number;
  problem?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  isPublic: boolean;
}

function operationsOf(document: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters as Parameter[],
      body: (operation.requestBody as { content: Record<string, { schema: JsonSchema }> } | undefined)?.content['application/json']?.schema,
      isPublic: (operation.security as unknown[]).length === 0,
    })),
  );
}

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

/**
 * The body with a loopback `baseUrl` wherever the operation takes one and the body would
 * otherwise reach a provider's default (public) address, or another host: requests from
 * tests reach this machine only. A `baseUrl` of the wrong type stays, to be refused.
 */
function loopbackOnly(body: Json, operation: Operation, url: string): Json {
  if (!operation.body?.properties?.baseUrl || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const baseUrl = body.baseUrl;
  const elsewhere = typeof baseUrl === 'string' && URL.canParse(baseUrl) && !LOOPBACK_HOSTS.includes(new URL(baseUrl).hostname);
  return baseUrl === undefined || elsewhere ? { ...body, baseUrl: url } : body;
}

/** A query or path value as text: strings as they are, anything else as its JSON. */
const asText = (value: Json) => (typeof value === 'string' ? value : toJsonText(value));

/**
 * The requests for one control-plane operation: two valid ones, then bad ids in each
 * path parameter, mutations of each query parameter and of the body, whole bodies that
 * are not the JSON wanted, and bad sessions.
 */
function controlPlaneRequests(random: Random, base: string, operation: Operation, hints: ValueHints, token: string): FuzzRequest[] {
  const pathParams = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParams = operation.parameters.filter((parameter) => parameter.in === 'query');
  const validParams = () =>
    Object.fromEntries(
      operation.parameters
        .filter((parameter) => parameter.required || random.chance(0.5))
        .map((parameter) => [parameter.name, asText(validValue(random, parameter.schema, hints, parameter.name))]),
    );
  const build = (label: string, params: Record<string, string>, body: { text: string | Uint8Array<ArrayBuffer>; contentType: string } | undefined, auth = `Bearer ${token}`): FuzzRequest => {
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    const query = new URLSearchParams(queryParams.flatMap((parameter) => (params[parameter.name] === undefined ? [] : [[parameter.name, params[parameter.name]!]])));
    return {
      label: `${operation.method} ${operation.path} — ${label}`,
      method: operation.method,
      url: `${base}${path}${query.size > 0 ? `?${query}` : ''}`,
      headers: { ...(auth ? { authorization: auth } : {}), ...(body ? { 'content-type': body.contentType } : {}) },
      ...(body ? { body: body.text } : {}),
    };
  };
  const json = (value: Json) => ({ text: toJsonText(loopbackOnly(value, operation, hints.url)), contentType: 'application/json' });
  const validBody = () => (operation.body ? json(validValue(random, operation.body, hints)) : undefined);

  const requests = [build('valid', validParams(), validBody()), build('valid again', validParams(), validBody())];
  for (const parameter of pathParams) {
    for (const bad of random.sample(BAD_IDS, 3)) requests.push(build(`path ${parameter.name}: ${JSON.stringify(bad.slice(0, 40))}`, { ...validParams(), [parameter.name]: bad }, validBody()));
  }
  for (const parameter of queryParams) {
    if (parameter.required) {
      const { [parameter.name]: _left, ...rest } = validParams();
      requests.push(build(`query ${parameter.name} missing`, rest, validBody()));
    }
    for (const [label, value] of random.sample(MUTATIONS, 3)) {
      requests.push(build(`query ${parameter.name}: ${label}`, { ...validParams(), [parameter.name]: asText(value()) }, validBody()));
    }
  }
  if (operation.body) {
    for (const mutation of bodyMutations(random, validValue(random, operation.body, hints), { perField: 2, nested: 3 })) {
      requests.push(build(`body ${mutation.label}`, validParams(), json(mutation.body)));
    }
  }
  if (operation.method !== 'GET') {
    for (const mutation of random.sample(WHOLE_BODY_MUTATIONS, operation.body ? 5 : 2)) {
      requests.push(build(`body: ${mutation.label}`, validParams(), { text: mutation.text, contentType: mutation.contentType }));
    }
  }
  const [label, auth] = random.pick([
    ['no session', ''],
    ['a session that is not a JWT', 'Bearer not.a.jwt'],
    ['an 8 KB session', `Bearer ${'a'.repeat(8192)}`],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
  ] as const);
  requests.push(build(label, validParams(), validBody(), auth));
  return requests;
}

/** A data-plane surface and a body it takes. */
interface Surface {
  path: string;
  format: 'openai' | 'anthropic';
  body(model: string): Record<string, unknown>;
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const SURFACES: Surface[] = [
  {
    path: '/v1/chat/completions',
    format: 'openai',
    body: (model) => ({
      model,
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'text', text: 'What is the weather?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      tool_choice: 'auto',
      response_format: { type: 'text' },
      stop: ['END'],
      max_tokens: 64,
      temperature: 0.2,
      stream: false,
    }),
  },
  {
    path: '/v1/messages',
    format: 'anthropic',
    body: (model) => ({
      model,
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be terse.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is the weather?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] }] },
      ],
      tools: [{ name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'auto' },
      metadata: { user_id: 'fuzz-user' },
      stop_sequences: ['END'],
      stream: false,
    }),
  },
  {
    path: '/v1/messages/count_tokens',
    format: 'anthropic',
    body: (model) => ({
      model,
      system: 'Be terse.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'How many tokens is this?' }] }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
    }),
  },
  { path: '/v1/embeddings', format: 'openai', body: (model) => ({ model, input: ['hello world', 'goodbye'], encoding_format: 'float' }) },
  {
    path: '/v1/responses',
    format: 'openai',
    body: (model) => ({
      model,
      instructions: 'Be terse.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] }],
      max_output_tokens: 32,
      stream: false,
    }),
  },
];

/** The requests for one surface and key: valid (plain and streamed), then mutations of the body, the bytes and the key. */
function dataPlaneRequests(random: Random, base: string, surface: Surface, key: string, model: string): FuzzRequest[] {
  const headers = (contentType = 'application/json'): Record<string, string> => ({
    authorization: `Bearer ${key}`,
    'content-type': contentType,
    ...(surface.format === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {}),
  });
  const request = (label: string, body: string | Uint8Array<ArrayBuffer>, requestHeaders = headers()): FuzzRequest => ({
    label: `POST ${surface.path} (${model}) — ${label}`,
    method: 'POST',
    url: `${base}${surface.path}`,
    headers: requestHeaders,
    body,
  });
  const valid = surface.body(model) as Json;
  const requests = [request('valid', toJsonText(valid))];
  if (surface.path !== '/v1/embeddings' && surface.path !== '/v1/messages/count_tokens') {
    requests.push(request('valid, streamed', toJsonText({ ...(valid as Record<string, Json>), stream: true })));
  }
  for (const mutation of bodyMutations(random, valid, { perField: 2, nested: 8 })) requests.push(request(`body ${mutation.label}`, toJsonText(mutation.body)));
  for (const mutation of random.sample(WHOLE_BODY_MUTATIONS, 5)) requests.push(request(`body: ${mutation.label}`, mutation.text, headers(mutation.contentType)));
  const { authorization: _key, ...keyless } = headers();
  requests.push(request('no key', toJsonText(valid), keyless));
  requests.push(request('a key that is not one', toJsonText(valid), { ...keyless, 'x-api-key': `sg_live_${'z'.repeat(600)}` }));
  return requests;
}

function modelsRequests(base: string, key: string): FuzzRequest[] {
  const get = (label: string, query: string, headers: Record<string, string>): FuzzRequest => ({
    label: `GET /v1/models — ${label}`,
    method: 'GET',
    url: `${base}/v1/models${query}`,
    headers,
  });
  return [
    get('valid', '', { authorization: `Bearer ${key}` }),
    get('Anthropic’s SDK', '?limit=20', { 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    get('odd query', `?limit=%00&after_id=${'a'.repeat(4000)}`, { authorization: `Bearer ${key}` }),
    get('no key', '', {}),
  ];
}

/** Sends one request and judges its answer. */
async function send(request: FuzzRequest): Promise<Outcome> {
  const sent = [request.url, ...Object.values(request.headers), typeof request.body === 'string' ? request.body : ''].join('\n');
  const started = performance.now();
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(15_000),
    });
    const answer = Buffer.from(await response.arrayBuffer()).toString();
    const ms = performance.now() - started;
    const echoes = [...response.headers].filter(([, value]) => echoedLength(value, sent) > MAX_ECHO_CHARACTERS).map(([name]) => name);
    const problem =
      response.status >= 500
        ? `answered ${response.status}: ${answer.slice(0, 200)}`
        : ms > MAX_ANSWER_MS
          ? `took ${Math.round(ms)} ms`
          : echoes.length > 0
            ? `echoed the request in ${echoes.join(', ')}`
            : undefined;
    return { request, status: response.status, ms, ...(problem ? { problem } : {}) };
  } catch (error) {
    return { request, status: 0, ms: performance.now() - started, problem: `no answer: ${(error as Error).cause ?? error}` };
  }
}

async function sendAll(requests: FuzzRequest[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) outcomes.push(await send(requests[next++]!));
    }),
  );
  return outcomes;
}

/** A JWKS endpoint with no keys, so Google sign-in is configured and every token fails to verify, locally. */
async function startEmptyJwks() {
  const server: Server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end('{"keys":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const mode of testModes) {
  describe(`fuzzing every control-plane operation and /v1 surface (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let jwks: Awaited<ReturnType<typeof startEmptyJwks>>;
    let openai: FakeOpenAI;
    let anthropic: FakeAnthropic;
    let gemini: FakeGemini;
    let control: Tenant;
    const ids: Record<string, string> = {};
    const keys: { key: string; model: string; embeddingModel: string }[] = [];

    beforeAll(async () => {
      [openai, anthropic, gemini, jwks] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini(), startEmptyJwks()]);
      spendgate = await startSpendgate(mode, 'adversarial-fuzz', {
        env: { GOOGLE_CLIENT_ID: 'spendgate-fuzz.apps.googleusercontent.com', GOOGLE_JWKS_URL: jwks.url, PLATFORM_ADMIN_EMAILS: CONTROL_PLANE_EMAIL },
      });
      const api = async (method: string, path: string, body?: unknown) => {
        const answer = await callApi(spendgate.url, method, path, { token: control.token, body });
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
        return answer.body.data;
      };

      // The data plane's keys belong to a team of their own, which the control plane's fuzzing never names.
      const data = await signUpTeam(spendgate.url, 'fuzz-data-plane@example.com');
      keys.push(
        { key: await issueByokKey(spendgate.url, data, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: openai.url }), model: 'gpt-4o-mini', embeddingModel: 'text-embedding-3-small' },
        { key: await issueByokKey(spendgate.url, data, { provider: 'anthropic', apiKey: 'sk-ant-fake-upstream', baseUrl: anthropic.url }), model: 'claude-haiku-4-5', embeddingModel: 'claude-haiku-4-5' },
        { key: await issueByokKey(spendgate.url, data, { provider: 'google', apiKey: 'fake-gemini-upstream-key', baseUrl: gemini.url }), model: 'gemini-2.5-flash', embeddingModel: 'gemini-2.5-flash' },
      );

      // The first token count builds tiktoken's encoder, once per process (~170 ms alone,
      // seconds on a busy machine): built before the clock starts, so 2 s bounds requests.
      const warmUp = await fetch(`${spendgate.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[0]!.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(warmUp.status).toBe(200);

      // The control plane's objects, so that generated requests name real ones too.
      control = await signUpTeam(spendgate.url, CONTROL_PLANE_EMAIL);
      ids.teamId = control.teamId;
      ids.groupId = control.groupId;
      ids.actorUserId = (await api('GET', '/auth/profile')).id;
      ids.connectionId = (await api('POST', '/provider/connections', { teamId: control.teamId, name: 'Fuzzed', provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: openai.url })).newConnection.id;
      ids.keyId = (await api('POST', `/synthetic-group/provider-key/create/${control.groupId}`, { name: 'Fuzzed', kind: 'byok', connectionId: ids.connectionId })).providerKey.id;
      ids.budgetId = (await api('POST', '/budgets', { scope: 'group', scopeId: control.groupId, amount: '100', window: 'month', mode: 'soft' })).id;
      ids.overrideId = (await api('PUT', '/pricing/overrides', { teamId: control.teamId, provider: 'openai', model: 'gpt-4o-mini', inputPerMTok: '0.1', outputPerMTok: '0.4' })).id;
      await api('POST', `/synthetic-group/${control.groupId}/invite`, { email: 'fuzz-invitee@example.com' });
      ids.invitationId = (await api('GET', `/synthetic-group/${control.groupId}/invitations`))[0].id;
      ids.planId = (await api('GET', '/subscription/plans'))[0].id;
      ids.faqId = (await api('POST', '/admin/faqs', { question: 'Fuzzed?', answer: 'Yes.' })).id;
      // Someone in the team and the group other than the caller, for member routes.
      const db = spendgate.app.runtime.stores.sql.db;
      ids.userId = crypto.randomUUID();
      await insertUser(db, { id: ids.userId, email: 'fuzz-bystander@example.com', name: 'Bystander', passwordHash: 'x' });
      await insertTeamMember(db, { teamId: control.teamId, userId: ids.userId, role: 'MEMBER' });
      await insertGroupMember(db, { groupId: control.groupId, userId: ids.userId, role: 'OBSERVER' });
    });
    afterAll(async () => {
      await spendgate?.close();
      await Promise.all([openai?.close(), anthropic?.close(), gemini?.close(), jwks?.close()]);
    });

    it('answers every generated request below 500, within 2 s, echoing no more than 512 characters of it in a header', async () => {
      const random = seededRandom(SEED);
      const document = await (await fetch(`${spendgate.url}/api/docs/openapi.json`)).json();
      const operations = operationsOf(document);
      expect(operations.length).toBeGreaterThan(50);

      /** The id of a real object for a field, by its name (and, for a path's `id`, by the path). */
      const idFor = (path: string) => (field: string) => {
        if (field !== 'id') return field === 'scopeId' ? ids.groupId : ids[field];
        if (path.startsWith('/api/budgets')) return ids.budgetId;
        if (path.startsWith('/api/provider/connections')) return ids.connectionId;
        if (path.startsWith('/api/synthetic-group/provider-key')) return ids.keyId;
        if (path.startsWith('/api/synthetic-group')) return ids.groupId;
        if (path.startsWith('/api/pricing/overrides')) return ids.overrideId;
        if (path.startsWith('/api/admin/faqs')) return ids.faqId;
        return undefined;
      };
      const requestsOf = (operation: Operation) =>
        controlPlaneRequests(random, spendgate.url, operation, { idFor: idFor(operation.path), url: openai.url }, control.token);

      const dataPlane = keys.flatMap(({ key, model, embeddingModel }) => [
        ...SURFACES.flatMap((surface) => dataPlaneRequests(random, spendgate.url, surface, key, surface.path === '/v1/embeddings' ? embeddingModel : model)),
        ...modelsRequests(spendgate.url, key),
      ]);
      // Deletions last, so the other operations meet the objects they name. The demo team is
      // made among the rest: its 90 days of sample usage are recorded in the background
      // meanwhile, a day at a time, and no answer beside them may take over 2 s.
      const controlPlane = operations.filter((operation) => operation.method !== 'DELETE').flatMap(requestsOf);
      const deletions = operations.filter((operation) => operation.method === 'DELETE').flatMap(requestsOf);

      const outcomes = [...(await sendAll([...dataPlane, ...controlPlane])), ...(await sendAll(deletions))];
      const serverErrors = outcomes.filter((outcome) => outcome.status >= 500).length;
      console.log(
        `fuzz (${mode}, seed ${SEED}): ${outcomes.length} requests sent (${controlPlane.length + deletions.length} control plane over ${operations.length} operations, ${dataPlane.length} data plane), ${serverErrors} answered 5xx`,
      );
      expect(outcomes.length).toBeGreaterThanOrEqual(1000);
      const failures = outcomes.filter((outcome) => outcome.problem).map(({ request, problem }) => `${request.label}: ${problem}`);
      expect(failures).toEqual([]);
    }, 300_000);
  });
}
