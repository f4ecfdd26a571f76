// Spend alerts as /api/alerts answers them: a team's channels (never their secrets) and its
// alerts, newest first, each with one delivery per channel and every attempt at it; and a
// team admin's own spend digest.
import type { DigestFrequency } from '@spendgate/core';

export type AlertChannelKind = 'email' | 'slack' | 'teams' | 'sms';
export type AlertDeliveryStatus = 'pending' | 'retrying' | 'sent' | 'logged' | 'failed';

export interface AlertChannel {
  id: string;
  teamId: string;
  kind: AlertChannelKind;
  name: string;
  /** Where it sends: addresses, the SMS number, or the webhook's host. */
  target: string;
  createdAt: string;
}

export interface AlertDeliveryAttempt {
  attempt: number;
  at: string;
  outcome: 'sent' | 'logged' | 'failed';
  statusCode: number | null;
  error: string | null;
}

export interface AlertDelivery {
  id: string;
  channelId: string | null;
  channelKind: AlertChannelKind;
  channelName: string;
  idempotencyKey: string;
  status: AlertDeliveryStatus;
  attempts: AlertDeliveryAttempt[];
  lastError: string | null;
  sentAt: string | null;
}

export interface AlertEvent {
  id: string;
  teamId: string;
  /** threshold: a budget's alert threshold; breach: the forecast projects the budget to run out; spike: a day far above its forecast; gpu-idle: a GPU holding memory while idle; test: "Send test". */
  kind: 'threshold' | 'breach' | 'spike' | 'gpu-idle' | 'test';
  budgetId: string | null;
  thresholdPercent: number | null;
  window: string | null;
  subject: string;
  message: string;
  createdAt: string;
  deliveries: AlertDelivery[];
}

/** What adds a channel: the fields of its kind. */
export type AlertChannelInput =
  | { kind: 'email'; teamId: string; name: string; addresses: string[] }
  | { kind: 'slack' | 'teams'; teamId: string; name: string; webhookUrl: string }
  | { kind: 'sms'; teamId: string; name: string; accountSid: string; authToken: string; from: string; to: string };


/** A team admin's own spend digest: how often (null: none), and the next one's days and time. */
export interface SpendDigest {
  teamId: string;
  frequency: DigestFrequency | null;
  timeZone: string;
  next: { firstDay: string; lastDay: string; dueAt: string } | null;
}

/** A sample digest on its way: to whom, and the period it covers. */
export interface SpendDigestPreview {
  to: string;
  frequency: DigestFrequency;
  firstDay: string;
  lastDay: string;
}
