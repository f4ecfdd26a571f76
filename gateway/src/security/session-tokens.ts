// Sign-in tokens for the console: short-lived HS256 JWTs; iss, aud, sub and exp are required.
// `sessionVersion` is the account's at signing; raising it (a password change, a Google
// take-over) ends older sessions. `emailVerified` says whether the account's email was
// verified when the token was signed: a token signed before that opens only the routes an
// unverified account may use, even after the email is verified (the client gets a new token).
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'spendgate';
const AUDIENCE = 'spendgate-console';
const LIFETIME = '8h';

export interface SessionClaims {
  userId: string;
  email: string;
  name: string;
  sessionVersion: number;
  emailVerified: boolean;
}

export function createSessionTokens(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    async sign(claims: SessionClaims): Promise<string> {
      return new SignJWT({ email: claims.email, name: claims.name, sv: claims.sessionVersion, ev: claims.emailVerified })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(LIFETIME)
        .sign(key);
    },
    /** The claims of a valid token, or undefined for anything else (a token without `exp` included). */
    async verify(token: string): Promise<SessionClaims | undefined> {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
          requiredClaims: ['exp', 'sub'],
        });
        if (typeof payload.sub !== 'string') return undefined;
        return {
          userId: payload.sub,
          email: String(payload.email),
          name: String(payload.name),
          sessionVersion: typeof payload.sv === 'number' ? payload.sv : 0,
          // Tokens signed before the claim existed leave it to the account's state.
          emailVerified: payload.ev !== false,
        };
      } catch {
        return undefined;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
