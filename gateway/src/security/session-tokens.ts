// Sign-in tokens for the console: short-lived HS256 JWTs with iss, aud and exp checked.
// `sessionVersion` is the account's at signing; a password change raises it, ending older sessions.
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'spendgate';
const AUDIENCE = 'spendgate-console';
const LIFETIME = '8h';

export interface SessionClaims {
  userId: string;
  email: string;
  name: string;
  avatar: string | null;
  sessionVersion: number;
}

export function createSessionTokens(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    async sign(claims: SessionClaims): Promise<string> {
      return new SignJWT({ email: claims.email, name: claims.name, avatar: claims.avatar, sv: claims.sessionVersion })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(LIFETIME)
        .sign(key);
    },
    /** The claims of a valid token, or undefined for anything else. */
    async verify(token: string): Promise<SessionClaims | undefined> {
      try {
        const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
        if (typeof payload.sub !== 'string') return undefined;
        return {
          userId: payload.sub,
          email: String(payload.email),
          name: String(payload.name),
          avatar: typeof payload.avatar === 'string' ? payload.avatar : null,
          sessionVersion: typeof payload.sv === 'number' ? payload.sv : 0,
        };
      } catch {
        return undefined;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
