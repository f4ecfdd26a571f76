/**
 * A local OpenID Provider for single sign-on tests: `oidc-provider` itself (a certified
 * implementation) on loopback, so discovery, the authorization code flow with PKCE (required
 * here), client authentication, ID-token signing and userinfo are the real wire formats. Its
 * development login and consent pages take any password; the login names one of `people`
 * (their `login`, by default their e-mail), which is also their subject (`sub`), and whose
 * e-mail, name and groups (`groups` claim, with the profile scope) the ID token carries.
 *
 * `tamper` re-signs the next ID tokens the token endpoint answers with the IdP's own key after
 * changing their claims (a wrong nonce, audience or expiry), as a broken or hostile IdP would.
 * `signIn` walks the login and consent pages over HTTP the way a browser would, and answers
 * the query the IdP sends the browser back to the client with.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export interface IdpPerson {
  /** The login name and subject; the e-mail when not given. */
  login?: string;
  email: string;
  name: string;
  groups: string[];
  emailVerified?: boolean;
}

export interface FakeIdp {
  /** e.g. http://127.0.0.1:40123 */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Adds or replaces a person, by login name. */
  person(person: IdpPerson): void;
  /** Changes the claims of ID tokens the token endpoint answers from now on; null stops. */
  tamper(change: ((claims: JWTPayload) => JWTPayload) | null): void;
  /** Signs `login` in at `authorizationUrl` through the login and consent pages; the query sent back to the redirect URI. */
  signIn(authorizationUrl: string, login: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

const KID = 'fake-idp-key';

export async function startFakeIdp(options: { redirectUri: string; clientId?: string; clientSecret?: string; people?: IdpPerson[] }): Promise<FakeIdp> {
  const clientId = options.clientId ?? 'spendgate-console';
  const clientSecret = options.clientSecret ?? 'fake-idp-client-secret-0123456789abcdef';
  const people = new Map((options.people ?? []).map((person) => [person.login ?? person.email, person]));
  let tampering: ((claims: JWTPayload) => JWTPayload) | null = null;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [options.redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // Scope claims go into the ID token too, as most IdPs can be set to do.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['fake-idp-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_context, id) {
      const person = people.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, email: person.email, email_verified: person.emailVerified ?? true, name: person.name, groups: person.groups }),
      };
    },
  });
  provider.use(async (context, next) => {
    await next();
    const body = context.body as { id_token?: string } | undefined;
    if (context.path === '/token' && tampering && body?.id_token) {
      const claims = tampering(decodeJwt(body.id_token));
      context.body = { ...body, id_token: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: KID }).sign(privateKey) };
    }
  });
  server.on('request', provider.callback());

  /** Follows redirects by hand, keeping the IdP's cookies, until one leaves the IdP. */
  async function signIn(authorizationUrl: string, login: string): Promise<Record<string, string>> {
    const cookies = new Map<string, string>();
    const send = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
      for (const header of response.headers.getSetCookie()) {
        const [pair = ''] = header.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    };
    let response = await send(authorizationUrl);
    for (let step = 0; step < 10; step += 1) {
      const location = response.headers.get('location');
      if (location) {
        const next = new URL(location, issuer);
        if (next.origin !== issuer) return Object.fromEntries(next.searchParams);
        response = await send(next.href);
        continue;
      }
      const page = await response.text();
      const action = page.match(/<form[^>]*action="([^"]+)"/)?.[1];
      const prompt = page.match(/name="prompt" value="(\w+)"/)?.[1];
      if (!action || !prompt) throw new Error(`the IdP answered ${response.status} without a form: ${page.slice(0, 500)}`);
      const form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt });
      response = await send(new URL(action, issuer).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    }
    throw new Error('the IdP never sent the browser back');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    person: (person) => people.set(person.login ?? person.email, person),
    tamper: (change) => {
      tampering = change;
    },
    signIn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
