/**
 * Google, as Sign in with Google uses it, on loopback:
 * - its JWKS (`/oauth2/v3/certs`), and ID tokens signed with its key the way Google signs
 *   them (RS256, issuer accounts.google.com, audience the client id): `sign`;
 * - Google Identity Services' client library (`/gsi/client`): `google.accounts.id`'s
 *   initialize and renderButton as Google's JavaScript reference describes them. As with
 *   Google's, the button is a frame from the library's folder (`/gsi/button`), so the page's
 *   CSP must allow it; pressing it opens the account chooser (`/gsi/select`) in a popup, and
 *   choosing an account there hands the page's callback `{ credential, select_by: 'btn' }`:
 *   an ID token for that account and the page's client id, passed from the popup to the
 *   button's frame and from it to the page, each message only to the origin meant to get it.
 * `accounts`: the Google accounts signed in in "the browser", which the chooser lists.
 * Start Spendgate with GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL and GOOGLE_SIGN_IN_SCRIPT_URL.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const GOOGLE_CLIENT_ID = 'spendgate-test.apps.googleusercontent.com';

export interface GoogleAccount {
  sub: string;
  email: string;
  name: string;
  email_verified?: boolean;
  picture?: string;
}

export interface FakeGoogle {
  jwksUrl: string;
  /** Google Identity Services' client library. */
  scriptUrl: string;
  /** Signs claims as Google signs an ID token. */
  sign(claims: Record<string, unknown>, options?: { audience?: string; issuer?: string; expiresIn?: string | number; key?: CryptoKey }): Promise<string>;
  /** The accounts the chooser lists, in order. */
  accounts: GoogleAccount[];
  close(): Promise<void>;
}

const BUTTON_TEXTS: Record<string, string> = {
  signin_with: 'Sign in with Google',
  signup_with: 'Sign up with Google',
  continue_with: 'Continue with Google',
  signin: 'Sign in',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
/** A value for an inline script: JSON that cannot close the script element. */
const scriptValue = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function page(response: ServerResponse, title: string, body: string): void {
  response.setHeader('content-type', 'text/html; charset=utf-8');
  response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`);
}

/** The library: the page's configuration, the button's frame, and the credential the frame relays. */
function clientLibrary(base: string): string {
  return `(() => {
  const base = ${scriptValue(base)};
  const baseOrigin = new URL(base).origin;
  let config = null;
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.origin !== baseOrigin || config === null || !data || data.type !== 'gsi:credential' || data.clientId !== config.client_id) return;
    config.callback({ credential: data.credential, select_by: 'btn' });
  });
  const id = {
    initialize(configuration) {
      if (!configuration || !configuration.client_id) return console.warn('[GSI_LOGGER]: Missing required parameter: client_id.');
      config = Object.assign({}, configuration);
    },
    renderButton(parent, options) {
      if (config === null) return console.warn('[GSI_LOGGER]: Failed to render button before calling initialize().');
      if (!options || !options.type) return console.warn('[GSI_LOGGER]: Missing required parameter: type.');
      const width = Math.min(400, Math.max(200, Number(options.width) || 240));
      const frame = document.createElement('iframe');
      frame.title = 'Sign in with Google Button';
      frame.src = base + 'button?' + new URLSearchParams({ client_id: config.client_id, text: options.text || 'signin_with', origin: location.origin });
      frame.width = String(width);
      frame.height = '44';
      frame.style.border = '0';
      const holder = document.createElement('div');
      holder.append(frame);
      parent.append(holder);
    },
    prompt() {},
    cancel() {},
    disableAutoSelect() {},
  };
  window.google = Object.assign(window.google || {}, { accounts: Object.assign((window.google && window.google.accounts) || {}, { id }) });
})();
`;
}

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts: GoogleAccount[] = [];
  const sign: FakeGoogle['sign'] = async (claims, options = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(options.issuer ?? 'https://accounts.google.com')
      .setAudience(options.audience ?? GOOGLE_CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '1h')
      .sign(options.key ?? privateKey);
  let origin = '';

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    const clientId = url.searchParams.get('client_id') ?? '';
    const pageOrigin = url.searchParams.get('origin') ?? '';
    switch (url.pathname) {
      case '/oauth2/v3/certs':
        response.setHeader('content-type', 'application/json');
        return response.end(JSON.stringify({ keys: [jwk] }));
      case '/gsi/client':
        response.setHeader('content-type', 'text/javascript; charset=utf-8');
        return response.end(clientLibrary(`${origin}/gsi/`));
      case '/gsi/button': {
        // The frame opens the chooser, and passes the credential the chooser sends it on to the page's origin only.
        const select = `${origin}/gsi/select?${new URLSearchParams({ client_id: clientId })}`;
        return page(
          response,
          'Sign in with Google Button',
          `<style>body{margin:0}button{box-sizing:border-box;width:100%;height:40px;border:1px solid #dadce0;border-radius:4px;background:#fff;color:#3c4043;font:500 14px system-ui,sans-serif;cursor:pointer}</style>
<button type="button" id="button">${escapeHtml(BUTTON_TEXTS[url.searchParams.get('text') ?? ''] ?? BUTTON_TEXTS.signin_with!)}</button>
<script>
document.getElementById('button').addEventListener('click', () => window.open(${scriptValue(select)}, 'gsi_select', 'width=480,height=600'));
window.addEventListener('message', (event) => {
  if (event.origin === ${scriptValue(origin)} && event.data && event.data.type === 'gsi:credential') window.parent.postMessage(event.data, ${scriptValue(pageOrigin)});
});
</script>`,
        );
      }
      case '/gsi/select': {
        const choices = accounts
          .map((account, index) => `<li><a href="/gsi/select/choose?${new URLSearchParams({ client_id: clientId, account: String(index) })}">${escapeHtml(account.name)} ${escapeHtml(account.email)}</a></li>`)
          .join('');
        return page(response, 'Sign in with Google', `<h1>Choose an account</h1>${choices ? `<ul>${choices}</ul>` : '<p>No Google account is signed in.</p>'}`);
      }
      case '/gsi/select/choose': {
        const account = accounts[Number(url.searchParams.get('account'))];
        if (account === undefined || clientId === '') {
          response.statusCode = 400;
          return response.end('no such account');
        }
        const { sub, email, name, email_verified = true, picture } = account;
        return void sign({ sub, email, name, email_verified, ...(picture ? { picture } : {}) }, { audience: clientId }).then((credential) =>
          page(
            response,
            'Signing in',
            `<p>Signing you in…</p><script>window.opener.postMessage(${scriptValue({ type: 'gsi:credential', credential, clientId })}, ${scriptValue(origin)}); window.close();</script>`,
          ),
        );
      }
      default:
        response.statusCode = 404;
        return response.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    jwksUrl: `${origin}/oauth2/v3/certs`,
    scriptUrl: `${origin}/gsi/client`,
    sign,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
