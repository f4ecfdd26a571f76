import { describe, expect, it } from 'vitest';
import { createOneTimeCodes, generateInvitationToken, hashInvitationToken } from './one-time-codes.ts';
import { passwordProblem } from './password-policy.ts';

describe('one-time codes', () => {
  const codes = createOneTimeCodes('s'.repeat(40));

  it('are six random digits, matched only for the same email, purpose and secret', () => {
    const generated = new Set(Array.from({ length: 200 }, () => codes.generate()));
    expect(generated.size).toBeGreaterThan(190);
    for (const code of generated) expect(code).toMatch(/^\d{6}$/);
    const hash = codes.hash('a@example.com', 'register', '012345');
    expect(hash).not.toContain('012345');
    expect(codes.matches(hash, 'a@example.com', 'register', '012345')).toBe(true);
    expect(codes.matches(hash, 'a@example.com', 'register', '012346')).toBe(false);
    expect(codes.matches(hash, 'b@example.com', 'register', '012345')).toBe(false);
    expect(codes.matches(hash, 'a@example.com', 'reset-password', '012345')).toBe(false);
    expect(createOneTimeCodes('t'.repeat(40)).matches(hash, 'a@example.com', 'register', '012345')).toBe(false);
  });
});

describe('invitation tokens', () => {
  it('carry 256 random bits and are stored as their SHA-256', () => {
    const { token, hash } = generateInvitationToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(hash).toBe(hashInvitationToken(token));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(generateInvitationToken().token).not.toBe(token);
  });
});

describe('password policy', () => {
  it.each([
    ['short', 'must be at least 8 characters'],
    ['x'.repeat(129), 'must be at most 128 characters'],
    ['PASSWORD', 'is too common; choose a less guessable one'],
    ['football', 'is too common; choose a less guessable one'],
    ['ada@example.com', 'must not be your email address'],
    ['correct horse battery staple', undefined],
    ['x'.repeat(128), undefined],
  ])('%s → %s', async (password, problem) => {
    expect(await passwordProblem(password, 'ada@example.com')).toBe(problem);
  });
});
