/**
 * A fake of Twilio's Messages API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json), as
 * Twilio documents it: HTTP basic auth with the account SID and auth token, a form-encoded
 * body with `To` (E.164), `From` and `Body`; `201 Created` with the Message resource in JSON
 * (`sid` SM…, `status: queued`). Errors in Twilio's JSON shape `{code, message, more_info,
 * status}`: 401 code 20003 (wrong credentials), 404 code 20404, 400 code 21211 (a `To` that is
 * not a phone number), 21603 (no `From`), 21602 (no `Body`). `x-fake-status` forces a status.
 */
import { FakeHttpError, type FakeProvider, type RecordedRequest, sendJson, sequentialIds, startFakeProviderServer } from './fake-provider-kit.ts';

export interface FakeTwilio extends FakeProvider {
  accountSid: string;
  authToken: string;
  /** The messages accepted: To, From, Body as sent. */
  messages: { to: string; from: string; body: string }[];
}

const ACCOUNT_SID = 'AC00000000000000000000000000fake01';
const AUTH_TOKEN = 'fakeauthtoken000000000000000001';

const twilioError = (status: number, code: number, message: string) =>
  new FakeHttpError(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const messages: FakeTwilio['messages'] = [];
  const nextId = sequentialIds();
  const fake = await startFakeProviderServer({
    answer(request: RecordedRequest, res) {
      const forced = Number(request.headers['x-fake-status']);
      if (forced) throw twilioError(forced, 20500, 'An internal server error has occurred');
      const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(request.path.split('?')[0]!);
      if (request.method !== 'POST' || !match) throw twilioError(404, 20404, 'The requested resource was not found');
      const credentials = Buffer.from(String(request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      if (credentials !== `${ACCOUNT_SID}:${AUTH_TOKEN}` || match[1] !== ACCOUNT_SID) throw twilioError(401, 20003, 'Authenticate');
      if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) throw twilioError(400, 21601, 'The request must be form-encoded');
      const form = new URLSearchParams(request.bodyText);
      const to = form.get('To') ?? '';
      const from = form.get('From') ?? '';
      const body = form.get('Body') ?? '';
      if (!/^\+[1-9]\d{7,14}$/.test(to)) throw twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      if (!from) throw twilioError(400, 21603, "A 'From' phone number is required.");
      if (!body) throw twilioError(400, 21602, 'Message body is required.');
      messages.push({ to, from, body });
      const sid = nextId('SM').padEnd(34, '0');
      const now = new Date().toUTCString();
      sendJson(res, 201, {
        sid,
        account_sid: ACCOUNT_SID,
        to,
        from,
        body,
        status: 'queued',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        num_segments: String(Math.ceil(body.length / 160)),
        num_media: '0',
        price: null,
        price_unit: 'USD',
        error_code: null,
        error_message: null,
        date_created: now,
        date_updated: now,
        date_sent: null,
        uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}.json`,
        subresource_uris: { media: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}/Media.json` },
      });
    },
    internalError: (message) => twilioError(500, 20500, message),
  });
  return Object.assign(fake, { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, messages });
}
