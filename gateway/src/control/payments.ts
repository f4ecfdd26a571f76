/**
 * Payments through Stripe: the webhook intake. A delivery's Stripe-Signature is checked on
 * the raw body with the webhook secret (the SDK's constructEvent, 5 minutes' tolerance), the
 * event kept by its id (a repeat only counts it) and, while it is not processed, a job queued
 * for it under an id of its own, so a replay queues nothing new: the request does nothing else.
 */
import { AppError, ValidationError } from '@spendgate/core';
import { type JobPayloads, type JobQueue, receiveStripeEvent, type SqlStore, type StripeConfig } from '@spendgate/store';
import { verifyStripeWebhook } from '@spendgate/worker';

const EVENT_ID = /^evt_\w{1,255}$/;

export function createPaymentService(deps: { sql: SqlStore; queue: JobQueue<JobPayloads>; stripe: Pick<StripeConfig, 'webhookSecret'> }) {
  return {
    /** Takes one webhook delivery: its event id, once the signature holds. */
    async receiveWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ received: true; eventId: string }> {
      const secret = deps.stripe.webhookSecret;
      // Without a secret nothing could be verified: the endpoint is not there.
      if (!secret) throw new AppError(404, 'not_found', 'Stripe webhooks are not set up on this server (STRIPE_WEBHOOK_SECRET)');
      if (!signature) throw new ValidationError('Stripe-Signature', 'Stripe-Signature: the header is missing');
      let event: ReturnType<typeof verifyStripeWebhook>;
      try {
        event = verifyStripeWebhook(rawBody, signature, secret);
      } catch {
        throw new ValidationError('Stripe-Signature', 'Stripe-Signature: no signature matches this body with the webhook secret, or it is more than 5 minutes old');
      }
      if (!EVENT_ID.test(event.id)) throw new ValidationError('id', 'id: not a Stripe event id');
      const object = event.data.object as { id?: unknown };
      const { pending } = await receiveStripeEvent(deps.sql.db, {
        id: event.id,
        type: event.type,
        objectId: typeof object.id === 'string' ? object.id : null,
        created: new Date(event.created * 1000),
        payload: event as unknown as Record<string, unknown>,
      });
      if (pending) await deps.queue.enqueue('stripe-event', { eventId: event.id }, { jobId: `stripe-event-${event.id}` });
      return { received: true, eventId: event.id };
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
