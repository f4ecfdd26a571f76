/**
 * Sign in with Google. The console draws Google's button with Google Identity Services'
 * client library (`scriptUrl`) for our OAuth client id; the ID token the button hands it
 * is verified here: signature against Google's JWKS (URL configurable, so tests serve
 * their own), `aud` = our OAuth client id, `iss` = accounts.google.com, `exp`, and a
 * verified email. A picture is kept only if it may be an avatar (core's avatarProblem).
 */
import { avatarProblem } from '@spendgate/core';
import { createRemoteJWKSet, jwtVerify } from 'jose';

const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

export interface GoogleIdentity {
  subject: string;
  email: string;
  name: string;
  picture: string | null;
}

export function createGoogleSignIn(config: { clientId: string; jwksUrl: string; scriptUrl: string }) {
  const jwks = createRemoteJWKSet(new URL(config.jwksUrl));
  return {
    /** What the console needs to draw the button. */
    browser: { clientId: config.clientId, scriptUrl: config.scriptUrl },
    /** The identity in a valid token; undefined for anything else. */
    async verify(idToken: string): Promise<GoogleIdentity | undefined> {
      try {
        const { payload } = await jwtVerify(idToken, jwks, {
          issuer: GOOGLE_ISSUERS,
          audience: config.clientId,
          algorithms: ['RS256'],
          requiredClaims: ['exp', 'sub', 'email'],
        });
        if (payload.email_verified !== true || typeof payload.email !== 'string' || typeof payload.sub !== 'string') {
          return undefined;
        }
        return {
          subject: payload.sub,
          email: payload.email.toLowerCase(),
          name: typeof payload.name === 'string' && payload.name.trim() ? payload.name.trim() : payload.email.split('@')[0]!,
          picture: typeof payload.picture === 'string' && avatarProblem(payload.picture) === undefined ? payload.picture : null,
        };
      } catch {
        return undefined;
      }
    },
  };
}

export type GoogleSignIn = ReturnType<typeof createGoogleSignIn>;
