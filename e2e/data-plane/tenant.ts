// Short-hands for data-plane tests: a signed-up team (its email confirmed) with a synthetic
// group, and keys issued for it against provider connections.
import { listUsageEvents } from '@spendgate/store';
import { expect } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, usageWritten } from '../support/spendgate.ts';

export interface Tenant {
  token: string;
  teamId: string;
  groupId: string;
}

/** Signs up (on the plan of `planId`, else the free trial) and creates a team with one group. */
export async function signUpTeam(base: string, email: string, options: { planId?: string } = {}): Promise<Tenant> {
  const { token } = await signUp(base, email, { password: 'a long and unusual passphrase', name: 'Data plane', ...options });
  const team = await callApi(base, 'POST', '/team/', { token, body: { name: 'Platform', description: '' } });
  const group = await callApi(base, 'POST', '/synthetic-group', {
    token,
    body: { name: 'Gateway tests', description: '', teamId: team.body.data.id },
  });
  expect(group.status).toBe(201);
  return { token, teamId: team.body.data.id, groupId: group.body.data.id };
}

/** Creates a connection and a BYOK key bound to it; returns the key's plaintext. */
export async function issueByokKey(
  base: string,
  tenant: Tenant,
  connection: { provider: string; apiKey: string; baseUrl: string; options?: Record<string, string> },
): Promise<string> {
  const created = await callApi(base, 'POST', '/provider/connections', {
    token: tenant.token,
    body: { teamId: tenant.teamId, name: `${connection.provider} test`, ...connection },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const key = await callApi(base, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
    token: tenant.token,
    body: { name: connection.provider, kind: 'byok', connectionId: created.body.data.newConnection.id },
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return key.body.data.key;
}

/**
 * The team's usage events once `count` have been recorded. A streamed answer ends for
 * the caller a moment before its event is queued, so this waits (bounded) rather than
 * reading once.
 */
export async function recordedEvents(spendgate: RunningSpendgate, teamId: string, count: number) {
  const { sql } = spendgate.app.runtime.stores;
  await expect
    .poll(
      async () => {
        await usageWritten(spendgate);
        return (await listUsageEvents(sql.db, teamId)).length;
      },
      { timeout: 10_000 },
    )
    .toBe(count);
  return listUsageEvents(sql.db, teamId);
}
