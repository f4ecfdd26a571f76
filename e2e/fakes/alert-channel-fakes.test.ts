// The Slack, Teams and Twilio fakes hold the alert deliveries to each provider's published
// request format: what the real service accepts passes, what it refuses is refused with its
// own status and body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackWebhook, startFakeSlackWebhook } from './slack-webhook.ts';
import { type FakeTeamsWebhook, startFakeTeamsWebhook } from './teams-webhook.ts';
import { type FakeTwilio, startFakeTwilio } from './twilio-messages.ts';

const postJson = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('alert channel fakes', () => {
  let slack: FakeSlackWebhook;
  let teams: FakeTeamsWebhook;
  let twilio: FakeTwilio;
  beforeAll(async () => {
    [slack, teams, twilio] = await Promise.all([startFakeSlackWebhook(), startFakeTeamsWebhook(), startFakeTwilio()]);
  });
  afterAll(() => Promise.all([slack?.close(), teams?.close(), twilio?.close()]));

  it('Slack: ok for text or valid blocks; invalid_payload, no_text, invalid_blocks, invalid_token, no_service otherwise', async () => {
    const answer = async (url: string, body: unknown) => {
      const response = await postJson(url, body);
      return [response.status, await response.text()];
    };
    expect(await answer(slack.webhookUrl, { text: 'hello' })).toEqual([200, 'ok']);
    expect(await answer(slack.webhookUrl, { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hi*' } }] })).toEqual([200, 'ok']);
    expect(await answer(slack.webhookUrl, '{not json')).toEqual([400, 'invalid_payload']);
    expect(await answer(slack.webhookUrl, {})).toEqual([400, 'no_text']);
    expect(await answer(slack.webhookUrl, { blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }] })).toEqual([400, 'invalid_blocks']);
    expect(await answer(slack.webhookUrl, { blocks: [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }] })).toEqual([400, 'invalid_blocks']);
    expect(await answer(slack.webhookUrl, { blocks: [{ type: 'banner' }] })).toEqual([400, 'invalid_blocks']);
    expect(await answer(`${slack.url}/services/T0/B0/wrong`, { text: 'x' })).toEqual([403, 'invalid_token']);
    expect(await answer(`${slack.url}/other`, { text: 'x' })).toEqual([404, 'no_service']);
    expect(slack.posted).toHaveLength(2);
  });

  it('Teams: 202 for a message of Adaptive Cards; 401 without the signature, 400 for another shape', async () => {
    const card = { contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'hi' }] } };
    expect((await postJson(teams.webhookUrl, { type: 'message', attachments: [card] })).status).toBe(202);
    const unsigned = await postJson(teams.webhookUrl.replace(/sig=[^&]+/, 'sig=forged'), { type: 'message', attachments: [card] });
    expect([unsigned.status, ((await unsigned.json()) as { error: { code: string } }).error.code]).toEqual([401, 'DirectApiAuthorizationRequired']);
    for (const body of [{ text: 'legacy connector card' }, { type: 'message', attachments: [{ ...card, contentType: 'application/vnd.microsoft.teams.card.o365connector' }] }, { type: 'message', attachments: [{ ...card, content: { ...card.content, version: 'two' } }] }]) {
      expect((await postJson(teams.webhookUrl, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(teams.cards).toHaveLength(1);
  });

  it("Twilio: 201 with a Message resource for a form with To, From, Body and the account's basic auth; Twilio's error codes otherwise", async () => {
    const send = async (form: Record<string, string>, credentials = `${twilio.accountSid}:${twilio.authToken}`) => {
      const response = await fetch(`${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: response.status, body: (await response.json()) as { sid?: string; status?: string | number; code?: number } };
    };
    const sent = await send({ To: '+447700900123', From: '+15005550006', Body: 'hi' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ status: 'queued', sid: expect.stringMatching(/^SM\w{32}$/) });
    expect((await send({ To: '+447700900123', From: '+15005550006', Body: 'hi' }, `${twilio.accountSid}:wrong`)).body).toMatchObject({ status: 401, code: 20003 });
    expect((await send({ To: '07700 900123', From: '+15005550006', Body: 'hi' })).body).toMatchObject({ status: 400, code: 21211 });
    expect((await send({ To: '+447700900123', Body: 'hi' })).body).toMatchObject({ status: 400, code: 21603 });
    expect((await send({ To: '+447700900123', From: '+15005550006' })).body).toMatchObject({ status: 400, code: 21602 });
    expect(twilio.messages).toEqual([{ to: '+447700900123', from: '+15005550006', body: 'hi' }]);
  });
});
