import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEnvelope } from './envelope.ts';

describe('envelope encryption', () => {
  const envelope = createEnvelope(randomBytes(32));
  const scope = { teamId: 'team-a', connectionId: 'conn-1', version: 1 };

  it('round-trips a secret without it appearing in the ciphertext', () => {
    const { wrapped } = envelope.newDataKey('team-a', 1);
    const sealed = envelope.encryptSecret(wrapped, scope, 'sk-canary-123456');
    expect(sealed.toString('latin1')).not.toContain('sk-canary');
    expect(envelope.decryptSecret(wrapped, scope, sealed)).toBe('sk-canary-123456');
  });

  it('refuses a ciphertext moved to another connection or team, or another master key', () => {
    const { wrapped } = envelope.newDataKey('team-a', 1);
    const sealed = envelope.encryptSecret(wrapped, scope, 'sk-secret');
    expect(() => envelope.decryptSecret(wrapped, { ...scope, connectionId: 'conn-2' }, sealed)).toThrow();
    expect(() => envelope.decryptSecret(wrapped, { ...scope, teamId: 'team-b' }, sealed)).toThrow();
    expect(() => createEnvelope(randomBytes(32)).decryptSecret(wrapped, scope, sealed)).toThrow();
  });
});
