// Spec §4's provider-connection transitions on the cached list.
import { describe, expect, it } from 'vitest';
import { addConnection, applyStatus, removeConnection, replaceConnection } from './transitions.ts';
import { monthUsage } from '../../testing/usage.ts';
import type { Connection, ListedConnection } from './types.ts';

const connection = (id: string, changes: Partial<Connection> = {}): Connection => ({
  id,
  teamId: 'team-1',
  provider: 'openai',
  name: `Connection ${id}`,
  baseUrl: 'https://api.openai.com/v1',
  baseUrlProblem: null,
  status: 'active',
  options: {},
  apiKeyTail: '••••abcd',
  createdAt: '2026-11-01T00:00:00.000Z',
  ...changes,
});
const listed = (id: string, requests: number): ListedConnection => ({ ...connection(id), thisMonth: monthUsage({ requests, costMicros: BigInt(requests * 10), costUsdMicros: BigInt(requests * 12) }) });

describe('connection transitions', () => {
  const list = [listed('a', 3), listed('b', 5)];

  it('a status change applies the returned id and status, nothing else', () => {
    const next = applyStatus(list, { id: 'b', status: 'disabled' })!;
    expect(next.map((entry) => entry.status)).toEqual(['active', 'disabled']);
    expect(next[1]).toEqual({ ...list[1], status: 'disabled' });
    expect(applyStatus(undefined, { id: 'b', status: 'disabled' })).toBeUndefined();
  });

  it("an update replaces the matching entry and keeps the month's figures the answer lacks", () => {
    const next = replaceConnection(list, connection('a', { name: 'Renamed', apiKeyTail: '••••wxyz' }))!;
    expect(next[0]).toMatchObject({ name: 'Renamed', apiKeyTail: '••••wxyz', thisMonth: { requests: 3 } });
    expect(next[1]).toBe(list[1]);
  });

  it('a deletion removes the entry', () => {
    expect(removeConnection(list, 'a')!.map((entry) => entry.id)).toEqual(['b']);
  });

  it('a creation appends the new connection, its month not read yet, once', () => {
    const created = connection('c');
    const next = addConnection(list, created);
    expect(next.map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
    expect(next[2]!.thisMonth).toBeNull();
    expect(addConnection(next, created).map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
    expect(addConnection(undefined, created)).toHaveLength(1);
  });
});
