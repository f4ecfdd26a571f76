import { describe, expect, it } from 'vitest';
import { emailDomain, ssoRoles } from './sso.ts';

const mappings = [
  { idpGroup: 'engineers', teamRole: 'MEMBER', groupId: 'search', groupRole: 'OBSERVER' },
  { idpGroup: 'search-leads', teamRole: 'MEMBER', groupId: 'search', groupRole: 'ADMIN' },
  { idpGroup: 'platform', teamRole: 'ADMIN', groupId: null, groupRole: null },
  { idpGroup: 'billing', teamRole: 'MEMBER', groupId: 'finance', groupRole: 'MAINTAINER' },
] as const;

describe('single sign-on roles', () => {
  it('gives the strongest team role and, per mapped group, the strongest group role matched', () => {
    const roles = ssoRoles({ mappings, defaultTeamRole: null }, ['engineers', 'search-leads', 'platform', 'unmapped']);
    expect(roles.teamRole).toBe('ADMIN');
    expect(Object.fromEntries(roles.groupRoles)).toEqual({ search: 'ADMIN', finance: null });
  });

  it('leaves someone in no mapped group to the default, which may let no one in', () => {
    expect(ssoRoles({ mappings, defaultTeamRole: 'MEMBER' }, ['sales']).teamRole).toBe('MEMBER');
    expect(ssoRoles({ mappings, defaultTeamRole: null }, []).teamRole).toBeNull();
    expect(Object.fromEntries(ssoRoles({ mappings, defaultTeamRole: null }, ['engineers']).groupRoles)).toEqual({ search: 'OBSERVER', finance: null });
  });

  it('reads an address’s domain in lower case', () => {
    expect(emailDomain('Ada@Example.COM')).toBe('example.com');
  });
});
