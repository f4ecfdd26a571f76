import { describe, expect, it } from 'vitest';
import { type Access, type Action, decide, PERMISSIONS } from './roles.ts';

// Every caller the product knows, from the owner to someone outside the team.
const CALLERS: Record<string, Access> = {
  teamAdmin: { teamRole: 'ADMIN', groupRole: null },
  groupAdmin: { teamRole: 'MEMBER', groupRole: 'ADMIN' },
  maintainer: { teamRole: 'MEMBER', groupRole: 'MAINTAINER' },
  observer: { teamRole: 'MEMBER', groupRole: 'OBSERVER' },
  teamMember: { teamRole: 'MEMBER', groupRole: null },
  outsider: { teamRole: null, groupRole: null },
};

// The whole matrix written out by hand from spec §6: A = allowed, F = 403, H = 404.
const EXPECTED: Record<Action, string> = {
  //                      teamAdmin groupAdmin maintainer observer teamMember outsider
  'team.members.view': 'AAAAAH',
  'team.members.invite': 'AFFFFH',
  'team.members.role': 'AFFFFH',
  'team.members.remove': 'AFFFFH',
  'team.audit.view': 'AFFFFH',
  'team.usage.view': 'AFFFFH',
  'team.settings.manage': 'AFFFFH',
  'team.access.review': 'AFFFFH',
  'team.retention.manage': 'AFFFFH',
  'connection.view': 'AAAAAH',
  'connection.manage': 'AFFFFH',
  'group.create': 'AAAAAH',
  'group.view': 'AAAAHH',
  'group.update': 'AAAFHH',
  'group.delete': 'AAFFHH',
  'group.members.manage': 'AAFFHH',
  'group.keys.manage': 'AAAFHH',
  'pricing.view': 'AAAAAH',
  'pricing.manage': 'AFFFFH',
  'budget.view': 'AAAAAH',
  'budget.manage': 'AFFFFH',
  'gpu.view': 'AAAAAH',
  'gpu.manage': 'AFFFFH',
  'sso.manage': 'AFFFFH',
};

const LETTER = { allowed: 'A', forbidden: 'F', hidden: 'H' } as const;

describe('role table (spec §6)', () => {
  it('answers every action for every caller as written out by hand', () => {
    const actual = Object.fromEntries(
      (Object.keys(PERMISSIONS) as Action[]).map((action) => [
        action,
        Object.values(CALLERS)
          .map((access) => LETTER[decide(action, access)])
          .join(''),
      ]),
    );
    expect(actual).toEqual(EXPECTED);
  });
});
