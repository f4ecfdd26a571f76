import { describe, expect, it } from 'vitest';
import { internalPath } from './next-path.ts';

describe('internalPath', () => {
  it('takes a path of this site, query included', () => {
    expect(internalPath('/groups/accept-invite?token=abc_DEF-123')).toBe('/groups/accept-invite?token=abc_DEF-123');
    expect(internalPath('/dashboard')).toBe('/dashboard');
  });

  it('refuses anything that could lead to another site, or no path at all', () => {
    for (const value of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '\\\\evil.example', '/\t/evil.example', 'dashboard', '', undefined, 42, ['/x']]) {
      expect(internalPath(value), String(value)).toBeUndefined();
    }
  });
});
