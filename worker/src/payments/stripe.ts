/**
 * Stripe, through the official SDK: the client built from the configuration (STRIPE_API_URL
 * as host, port and protocol, so tests reach a local fake of Stripe's wire format), the
 * idempotency key every write carries, and the check of a webhook's Stripe-Signature. The
 * secret key and the webhook secret stay here and in the SDK: never logged, never in a job.
 */
import type { StripeConfig } from '@spendgate/store';
import Stripe from 'stripe';

/** How long a call to Stripe may take before the SDK gives up (it retries twice, with the same idempotency key). */
const STRIPE_TIMEOUT_MS = 20_000;
/** How old a webhook's signature may be, in seconds (the SDK's default, Stripe's advice). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The SDK's client for the configured account, or undefined when no STRIPE_SECRET_KEY is set. */
export function createStripeClient(config: Pick<StripeConfig, 'apiUrl' | 'secretKey'>): Stripe | undefined {
  if (!config.secretKey) return undefined;
  const origin = new URL(config.apiUrl);
  const protocol = origin.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(config.secretKey, {
    host: origin.hostname,
    port: origin.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 2,
    timeout: STRIPE_TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: 'Spendgate' },
  });
}

/**
 * The idempotency key of one write: what it is for, whose, and which period or line, so a
 * retry (ours, the queue's or the SDK's) is the same request to Stripe and a different
 * write never shares a key.
 * @example stripeIdempotencyKey('invoice-line', accountId, '2026-11', lineId) // 'spendgate:invoice-line:…:2026-11:…'
 */
export function stripeIdempotencyKey(operation: string, ...parts: (string | number)[]): string {
  return ['spendgate', operation, ...parts].join(':');
}

/** The event in a webhook's raw body when its Stripe-Signature is valid and recent; throws Stripe's signature error otherwise. */
export function verifyStripeWebhook(rawBody: Buffer, signature: string, webhookSecret: string): Stripe.Event {
  return Stripe.webhooks.constructEvent(rawBody, signature, webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
}
