// Who is signed in on a request, set by the control plane's session check from the
// account as it is now (not as the token remembers it), and which routes an account
// whose email is not verified yet may use.
import type { FastifyRequest } from 'fastify';
import type { SessionClaims } from '../security/session-tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in account (set on every route that is not public). */
    user?: SessionClaims;
  }
  interface FastifyContextConfig {
    /** Open without a session token. */
    public?: boolean;
    /** A public route that still reads a valid session when one is sent (an invalid one is ignored). */
    optionalSession?: boolean;
    /** Open to a session whose email is not verified yet; every other signed-in route answers 403 `email_not_verified`. */
    unverified?: boolean;
    /** The 401 message when no token is sent (default: the session-expired one). */
    missingSessionMessage?: string;
  }
}

export const SESSION_EXPIRED = 'Session expired. Please login again.';

/** The signed-in account of a route that is not public. */
export const signedIn = (request: FastifyRequest): SessionClaims => request.user!;
