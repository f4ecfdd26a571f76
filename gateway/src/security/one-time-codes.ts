/**
 * Secrets sent by email. One-time codes: 6 random digits, stored as an HMAC keyed by a
 * server secret (a bare hash of a 6-digit code is reversed in a million guesses).
 * Invitation tokens: 256 random bits, base64url, stored as their SHA-256 hash.
 *
 * @example
 *   const codes = createOneTimeCodes(secret);
 *   const code = codes.generate();            // '048213'
 *   codes.matches(codes.hash('a@b.c', 'register', code), 'a@b.c', 'register', code) // true
 */
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export function createOneTimeCodes(secret: string) {
  const key = createHash('sha256').update(`spendgate:otp:${secret}`).digest();
  const hash = (email: string, purpose: string, code: string) =>
    createHmac('sha256', key).update(`${purpose}\u0000${email}\u0000${code}`).digest('hex');
  return {
    generate: () => String(randomInt(0, 1_000_000)).padStart(6, '0'),
    hash,
    matches(storedHash: string, email: string, purpose: string, code: string): boolean {
      const candidate = Buffer.from(hash(email, purpose, code), 'hex');
      const stored = Buffer.from(storedHash, 'hex');
      return candidate.length === stored.length && timingSafeEqual(candidate, stored);
    },
  };
}

export type OneTimeCodes = ReturnType<typeof createOneTimeCodes>;

export function generateInvitationToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
