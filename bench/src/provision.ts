/**
 * Obtains an issued key the way a user does, through the control-plane API of the
 * gateway under test: register → confirm the email with the mailed code → team → OpenAI
 * connection to the mock upstream → synthetic group → BYOK key with a hard monthly budget
 * (far above what a run spends, so every request is reserved and settled on the ledger
 * but none is refused). Also reads back how many requests the group was metered for.
 */
import { randomBytes } from 'node:crypto';
import { UPSTREAM_API_KEY } from './workload.ts';

interface Envelope<T> {
  success: boolean;
  data: T;
  message: string;
}

async function callApi<T>(base: string, method: string, route: string, token: string | undefined, body?: unknown): Promise<T> {
  const response = await fetch(`${base}/api${route}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Envelope<T>;
  if (!response.ok || !answer.success) {
    throw new Error(`${method} /api${route} answered ${response.status}: ${answer.message ?? JSON.stringify(answer)}`);
  }
  return answer.data;
}

export interface Provisioned {
  issuedKey: string;
  token: string;
  groupId: string;
}

/**
 * Sets up a team whose key calls `upstreamUrl` (the mock's origin) as an OpenAI connection;
 * `mailedCode` reads the code the gateway mailed to an address.
 */
export async function provisionIssuedKey(gatewayUrl: string, upstreamUrl: string, mailedCode: (email: string) => Promise<string>): Promise<Provisioned> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const password = `bench ${randomBytes(12).toString('base64url')}`;
  const registered = await callApi<{ token: string }>(gatewayUrl, 'POST', '/auth/register', undefined, { email, password, name: 'Bench' });
  const { token } = await callApi<{ token: string }>(gatewayUrl, 'POST', '/auth/verify-email-otp', registered.token, { email, otp: await mailedCode(email) });
  const team = await callApi<{ id: string }>(gatewayUrl, 'POST', '/team/', token, { name: 'Bench', description: 'load test' });
  const { newConnection } = await callApi<{ newConnection: { id: string } }>(gatewayUrl, 'POST', '/provider/connections', token, {
    teamId: team.id,
    provider: 'openai',
    name: 'Mock upstream',
    apiKey: UPSTREAM_API_KEY,
    baseUrl: `${upstreamUrl}/v1`,
  });
  const group = await callApi<{ id: string }>(gatewayUrl, 'POST', '/synthetic-group', token, {
    name: 'Bench',
    description: 'load test',
    teamId: team.id,
  });
  const { key, providerKey } = await callApi<{ key: string; providerKey: { id: string } }>(
    gatewayUrl,
    'POST',
    `/synthetic-group/provider-key/create/${group.id}`,
    token,
    { name: 'bench', kind: 'byok', connectionId: newConnection.id },
  );
  await callApi(gatewayUrl, 'POST', '/budgets', token, {
    scope: 'key',
    scopeId: providerKey.id,
    amount: '1000000',
    window: 'month',
    mode: 'hard',
    alertAt: [80, 100],
  });
  // BENCH_PROMPT_CAPTURE=on: the team and its group capture prompts (what capture costs the data plane).
  if (process.env.BENCH_PROMPT_CAPTURE === 'on') {
    await callApi(gatewayUrl, 'PUT', `/capture/teams/${team.id}`, token, { enabled: true });
    await callApi(gatewayUrl, 'PUT', `/capture/groups/${group.id}`, token, { enabled: true });
  }
  return { issuedKey: key, token, groupId: group.id };
}

/** How many requests the group's usage shows between two UTC dates (YYYY-MM-DD). */
export async function meteredRequests(gatewayUrl: string, provisioned: Provisioned, startDate: string, endDate: string): Promise<number> {
  const usage = await callApi<{ requests: number }>(
    gatewayUrl,
    'GET',
    `/usage/group?groupId=${provisioned.groupId}&startDate=${startDate}&endDate=${endDate}`,
    provisioned.token,
  );
  return usage.requests;
}
