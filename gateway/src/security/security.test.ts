import { describe, expect, it } from 'vitest';
import { GPU_INGEST_KEY_PREFIX, generateIssuedKey, hashIssuedKey, isWellFormedKey } from './issued-keys.ts';
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

  it('are sg_gpu_ keys for GPU agents, which no sg_live_ check accepts (nor the other way round)', () => {
    const { plaintext, prefix } = generateIssuedKey(GPU_INGEST_KEY_PREFIX);
    expect(plaintext).toMatch(/^sg_gpu_[0-9A-Za-z]{49}$/);
    expect(prefix).toBe(plaintext.slice(0, 13));
    expect(isWellFormedKey(plaintext, GPU_INGEST_KEY_PREFIX)).toBe(true);
    expect(isWellFormedKey(plaintext)).toBe(false);
    expect(isWellFormedKey(generateIssuedKey().plaintext, GPU_INGEST_KEY_PREFIX)).toBe(false);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateIssuedKey().plaintext));
    expect(keys.size).toBe(200);
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
