import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEnvelope } from './envelope.ts';
import { generateIssuedKey, hashIssuedKey, isWellFormedKey } from './issued-keys.ts';
import { createSessionTokens } from './session-tokens.ts';

describe('issued keys', () => {
  it('are sg_live_ keys with a checksum, stored as a hash and a short prefix', () => {
    const { plaintext, hash, prefix } = generateIssuedKey();
    expect(plaintext).toMatch(/^sg_live_[0-9A-Za-z]{49}$/);
    expect(hash).toBe(hashIssuedKey(plaintext));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(prefix).toBe(plaintext.slice(0, 14));
    expect(isWellFormedKey(plaintext)).toBe(true);
  });

  it('rejects a key with one character changed', () => {
    const { plaintext } = generateIssuedKey();
    const i = 20;
    const typo = plaintext.slice(0, i) + (plaintext[i] === 'a' ? 'b' : 'a') + plaintext.slice(i + 1);
    expect(isWellFormedKey(typo)).toBe(false);
    expect(isWellFormedKey('sg_live_short')).toBe(false);
    expect(isWellFormedKey(`sk_live_${plaintext.slice(8)}`)).toBe(false);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateIssuedKey().plaintext));
    expect(keys.size).toBe(200);
  });
});

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

describe('session tokens', () => {
  const claims = { userId: 'u1', email: 'a@example.com', name: 'A', sessionVersion: 2, emailVerified: false };

  it('verify what they signed and nothing signed with another secret', async () => {
    const tokens = createSessionTokens('s'.repeat(40));
    const token = await tokens.sign(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    expect(await createSessionTokens('t'.repeat(40)).verify(token)).toBeUndefined();
    expect(await tokens.verify(`${token}x`)).toBeUndefined();
    expect(await tokens.verify('garbage')).toBeUndefined();
  });
});
