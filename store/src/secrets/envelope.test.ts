import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
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

  it('derives each team its own body-hash key: the same on every start, another for another team or master key', () => {
    const master = randomBytes(32);
    const key = createEnvelope(master).bodyHashKey('team-a');
    expect(key).toEqual(Buffer.from(hkdfSync('sha256', master, 'spendgate:body-hmac:v1', 'team-a', 32)));
    expect(createEnvelope(Buffer.from(master)).bodyHashKey('team-a')).toEqual(key);
    expect(createEnvelope(master).bodyHashKey('team-b')).not.toEqual(key);
    expect(createEnvelope(randomBytes(32)).bodyHashKey('team-a')).not.toEqual(key);
    // A body's fingerprint is not its plain SHA-256, which anyone could compute from a guess.
    const body = '{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}';
    expect(createHmac('sha256', key).update(body).digest('hex')).not.toBe(createHash('sha256').update(body).digest('hex'));
  });
});
