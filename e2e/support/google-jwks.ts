/**
 * A stand-in for Google's JWKS endpoint on loopback, and ID tokens signed with its key the
 * way Google signs them (RS256, issuer accounts.google.com, audience the client id), for
 * tests of Google sign-in: start Spendgate with GOOGLE_CLIENT_ID and GOOGLE_JWKS_URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const GOOGLE_CLIENT_ID = 'spendgate-test.apps.googleusercontent.com';

export async function startJwks() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/v3/certs`;
  const sign = async (
    claims: Record<string, unknown>,
    options: { audience?: string; issuer?: string; expiresIn?: string | number; key?: CryptoKey } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(options.issuer ?? 'https://accounts.google.com')
      .setAudience(options.audience ?? GOOGLE_CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '1h')
      .sign(options.key ?? privateKey);
  return { url, sign, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
