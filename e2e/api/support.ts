/**
 * Helpers for the control-plane API tests: a real SMTP server on loopback that keeps
 * every message Spendgate sends, and short-hands for accounts.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { expect } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi } from '../support/spendgate.ts';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

export interface MailSink {
  /** smtp://127.0.0.1:<port> */
  url: string;
  messages: ReceivedMail[];
  /** The newest message to `to` once it has arrived (the mail job runs in the background). */
  next(to: string, seenBefore?: number): Promise<ReceivedMail>;
  countTo(to: string): number;
  close(): Promise<void>;
}

/** Decodes a quoted-printable body (soft line breaks and =XX bytes). */
function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Decodes a header's RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), as a mail client shows them; the space between two is dropped. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1');
      return new TextDecoder(charset).decode(bytes);
    });
}

function parseMessage(to: string, raw: string): ReceivedMail {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1]?.trim() ?? '';
  const body = rest.join('\n\n');
  const text = /quoted-printable/i.test(header('Content-Transfer-Encoding'))
    ? decodeQuotedPrintable(body)
    : /base64/i.test(header('Content-Transfer-Encoding'))
      ? Buffer.from(body, 'base64').toString('utf8')
      : body;
  return { to, subject: decodeEncodedWords(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

export async function startMailSink(): Promise<MailSink> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        for (const recipient of session.envelope.rcptTo) {
          messages.push(parseMessage(recipient.address.toLowerCase(), Buffer.concat(chunks).toString('latin1')));
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const to = (address: string) => messages.filter((message) => message.to === address);
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    countTo: (address) => to(address).length,
    async next(address, seenBefore = 0) {
      await expect.poll(() => to(address).length, { timeout: 10_000, interval: 25 }).toBeGreaterThan(seenBefore);
      return to(address).at(-1)!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 6-digit code in a one-time-code email. */
export function codeIn(mail: ReceivedMail): string {
  const code = /^\s+(\d{6})\s*$/m.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in: ${mail.text}`);
  return code;
}

/** The invitation token in an invitation email's link. */
export function invitationTokenIn(mail: ReceivedMail): string {
  const token = /[?&](?:token|invite)=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no invitation link in: ${mail.text}`);
  return token;
}

/**
 * Registers an account and answers its session token and user id. Its email is confirmed
 * with the mailed code (the token is the full session) unless `unverified` is set.
 */
export async function registerUser(base: string, email: string, options: { planId?: string; password?: string; unverified?: boolean } = {}) {
  if (!options.unverified) return signUp(base, email, options);
  const answer = await callApi(base, 'POST', `/auth/register${options.planId ? `?planId=${options.planId}` : ''}`, {
    body: { email, password: options.password ?? 'a long enough password', name: email.split('@')[0] },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { token: answer.body.data.token as string, userId: answer.body.data.user.id as string };
}
