// alert-deliver: sends one alert to one channel — e-mail over SMTP (printed to the log
// when no SMTP_URL is set), a Slack incoming webhook (Block Kit), a Teams Workflows
// webhook (an Adaptive Card) or an SMS through Twilio's Messages API with the official
// SDK. The delivery is claimed first (one sender at a time, never after it succeeded; a
// run finding it held by another is retried later, in case that one dies);
// every attempt is recorded with its outcome. A refusal that another try cannot mend
// (a 4xx other than 408/429, a deleted channel) fails at once; others are retried by the
// queue's backoff until the last attempt.
import { type AlertText, slackMessage, smsBody, teamsMessage } from '@spendgate/core';
import {
  type AlertDeliverJob,
  alertChannelSecretScope,
  claimAlertDelivery,
  type Envelope,
  findAlertDeliveryStatus,
  findTeamDataKey,
  type MailConfig,
  type OutboundGuard,
  recordAlertAttempt,
  type SqlStore,
} from '@spendgate/store';
import nodemailer from 'nodemailer';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import { request } from 'undici';

/** Tries one delivery gets (the registry's attempts for the job). */
export const ALERT_DELIVERY_ATTEMPTS = 5;
/** How long a claimed delivery is held by the run sending it. */
const CLAIM_LEASE_MS = 60_000;
const WEBHOOK_TIMEOUT_MS = 10_000;

/** A failed send: `permanent` when another try would be refused the same way. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly statusCode: number | undefined,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

const permanentStatus = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

export interface AlertDeliveryDeps {
  sql: Pick<SqlStore, 'db'>;
  mail: MailConfig;
  envelope: Envelope;
  outbound: Pick<OutboundGuard, 'dispatcher'>;
  /** Twilio's API origin (TWILIO_API_URL). */
  twilioApiUrl: string;
  log: { info(message: string): void };
  now?: () => Date;
}

type Claimed = NonNullable<Awaited<ReturnType<typeof claimAlertDelivery>>>;
type Channel = NonNullable<Claimed['channel']>;
type Outcome = { status: 'sent' | 'logged'; statusCode?: number };

/** The Twilio SDK's HTTP client, sending to `origin` instead of api.twilio.com (the same path, query and body). */
function twilioClientFor(origin: string) {
  return new (class extends twilio.RequestClient {
    override request<TData>(options: RequestClient.RequestOptions<TData>) {
      const url = new URL(options.uri);
      return super.request<TData>({ ...options, uri: `${origin}${url.pathname}${url.search}` });
    }
  })();
}

export function createAlertDeliverProcessor(deps: AlertDeliveryDeps) {
  const now = deps.now ?? (() => new Date());
  const transport = deps.mail.smtpUrl ? nodemailer.createTransport(deps.mail.smtpUrl) : undefined;
  const twilioHttp = twilioClientFor(deps.twilioApiUrl);

  async function secretOf(channel: Channel): Promise<string> {
    const dataKey = await findTeamDataKey(deps.sql.db, channel.team_id);
    if (!dataKey || !channel.secret_ciphertext || channel.secret_key_version === null) throw new DeliveryError('The channel has no secret stored', undefined, true);
    return deps.envelope.decryptSecret(dataKey.wrapped_key, alertChannelSecretScope(channel.team_id, channel.id, channel.secret_key_version), channel.secret_ciphertext);
  }

  async function postJson(url: string, body: unknown, accepted: (status: number) => boolean): Promise<Outcome> {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        dispatcher: deps.outbound.dispatcher,
        headersTimeout: WEBHOOK_TIMEOUT_MS,
        bodyTimeout: WEBHOOK_TIMEOUT_MS,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const refused = (error as { code?: string }).code === 'address_not_allowed';
      throw new DeliveryError(refused ? message : `The webhook could not be reached: ${message}`, undefined, refused);
    }
    const text = (await response.body.text()).slice(0, 200);
    if (accepted(response.statusCode)) return { status: 'sent', statusCode: response.statusCode };
    throw new DeliveryError(`The webhook answered ${response.statusCode}${text ? `: ${text}` : ''}`, response.statusCode, permanentStatus(response.statusCode));
  }

  async function send(channel: Channel, alert: AlertText, idempotencyKey: string): Promise<Outcome> {
    const settings = channel.settings;
    if (channel.kind === 'email') {
      const to = settings.addresses ?? [];
      if (!transport) {
        deps.log.info(`Alert to ${to.join(', ')} (no SMTP_URL set, so it is printed here)\nSubject: ${alert.subject}\n\n${alert.text}`);
        return { status: 'logged' };
      }
      try {
        await transport.sendMail({ from: deps.mail.from, to, subject: alert.subject, text: alert.text, messageId: `<${idempotencyKey}@spendgate.alerts>` });
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        throw new DeliveryError(`The mail server refused the message: ${error instanceof Error ? error.message : String(error)}`, code, code !== undefined && code >= 500 && code < 600 && code !== 552);
      }
      return { status: 'sent' };
    }
    if (channel.kind === 'slack') return postJson(await secretOf(channel), slackMessage(alert), (status) => status === 200);
    if (channel.kind === 'teams') return postJson(await secretOf(channel), teamsMessage(alert), (status) => status >= 200 && status < 300);
    const client = twilio(settings.accountSid, await secretOf(channel), { httpClient: twilioHttp });
    try {
      await client.messages.create({ to: settings.to!, from: settings.from!, body: smsBody(alert) });
    } catch (error) {
      const status = (error as { status?: number }).status;
      const message = error instanceof Error ? error.message : String(error);
      throw new DeliveryError(`Twilio refused the message${status ? ` (${status})` : ''}: ${message}`, status, status !== undefined && permanentStatus(status));
    }
    return { status: 'sent', statusCode: 201 };
  }

  return async (job: AlertDeliverJob, meta: { attempt: number }): Promise<void> => {
    const claimed = await claimAlertDelivery(deps.sql.db, job.deliveryId, now(), CLAIM_LEASE_MS);
    if (!claimed) {
      // Done already (or gone): nothing to send. Held by another run: try again after it, in case that run dies.
      const status = await findAlertDeliveryStatus(deps.sql.db, job.deliveryId);
      if (status === 'pending' || status === 'retrying') throw new Error(`Alert delivery ${job.deliveryId} is being sent by another run`);
      return;
    }
    const record = (status: 'sent' | 'logged' | 'retrying' | 'failed', statusCode?: number, error?: string) =>
      recordAlertAttempt(deps.sql.db, { deliveryId: claimed.id, attempt: claimed.attempts, at: now(), status, statusCode, error });
    try {
      if (!claimed.channel) throw new DeliveryError('The channel was deleted', undefined, true);
      const outcome = await send(claimed.channel, { subject: claimed.alert.subject, text: claimed.alert.message }, claimed.idempotency_key);
      await record(outcome.status, outcome.statusCode);
    } catch (error) {
      const failure = error instanceof DeliveryError ? error : new DeliveryError(error instanceof Error ? error.message : String(error), undefined, false);
      const last = failure.permanent || meta.attempt >= ALERT_DELIVERY_ATTEMPTS;
      await record(last ? 'failed' : 'retrying', failure.statusCode, failure.message);
      if (!last) throw failure;
    }
  };
}
