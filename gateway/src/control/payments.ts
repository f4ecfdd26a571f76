/**
 * Payments through Stripe: an account's own subscription as the Stripe-facing calls of spec §7
 * see it, and the webhook intake.
 *
 * The calls: read the subscription; choose a plan (directly with a saved card, or through a
 * Stripe Checkout Session in `setup` mode); cards (a SetupIntent for Stripe.js, save, make
 * default, remove); cancel (now or at period end); change plan. Who: the signed-in account
 * acts on its own subscription only — the one that pays for the teams it created — so a team
 * admin who did not create a team cannot change what its creator pays.
 *
 * Spendgate invoices each period itself (invoice-build: the plan fee prorated by the plan
 * history, then usage); Stripe keeps the customer and its cards and charges those invoices.
 * So Checkout runs in `setup` mode (nothing is due at checkout: a trial continues, a paused
 * or cancelled subscription starts billing in arrears) and no Stripe Subscription is made,
 * which would charge the plan fee a second time. Without STRIPE_SECRET_KEY the calls that
 * need Stripe answer 409 `payments_not_configured`.
 *
 * The webhook: a delivery's Stripe-Signature is checked on the raw body with the webhook
 * secret (the SDK's constructEvent, 5 minutes' tolerance), the event kept by its id (a repeat
 * only counts it) and, while it is not processed, a job queued for it under an id of its own,
 * so a replay queues nothing new: the request does nothing else.
 */
import { randomUUID } from 'node:crypto';
import { AppError, ConflictError, NotFoundError, type PlanSlug, planTerms, ValidationError } from '@spendgate/core';
import {
  type AuditEntry,
  billedTeamIds,
  cancelSubscription,
  changeSubscriptionPlan,
  type Db,
  detachPaymentMethod,
  findPaymentMethod,
  findSubscription,
  findSubscriptionPlan,
  listPaymentMethods,
  listSubscriptionPlans,
  type JobPayloads,
  type JobQueue,
  receiveStripeEvent,
  type SqlStore,
  type StripeConfig,
  type SubscriptionRow,
  setDefaultPaymentMethod,
  writeAudit,
} from '@spendgate/store';
import {
  applyCheckoutSession,
  attachCard,
  callStripe,
  choosablePlan,
  choosePlan,
  ensureCustomer,
  keepCard,
  makeStripeDefault,
  stripeFailure,
  stripeIdempotencyKey,
  verifyStripeWebhook,
} from '@spendgate/worker';
import type Stripe from 'stripe';

const EVENT_ID = /^evt_\w{1,255}$/;

type PaymentMethodRow = Awaited<ReturnType<typeof listPaymentMethods>>[number];

const paymentMethodView = (row: PaymentMethodRow) => ({
  id: row.stripe_payment_method_id,
  brand: row.brand,
  last4: row.last4,
  expMonth: row.exp_month,
  expYear: row.exp_year,
  isDefault: row.is_default,
  createdAt: row.created_at,
});

export function createPaymentService(deps: {
  sql: SqlStore;
  queue: JobQueue<JobPayloads>;
  /** The SDK's client; undefined without STRIPE_SECRET_KEY. */
  stripe: Stripe | undefined;
  stripeConfig: Pick<StripeConfig, 'webhookSecret'>;
  publicUrl: string;
  /** Drops the account's keys from the gateways' caches, so what it may use changes at once. */
  refreshKeys: (userId: string) => Promise<void>;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  async function subscriptionOf(userId: string): Promise<SubscriptionRow> {
    const subscription = await findSubscription(db, userId);
    if (!subscription) throw new NotFoundError('Subscription');
    return subscription;
  }

  function stripeClient(): Stripe {
    if (!deps.stripe) throw new AppError(409, 'payments_not_configured', 'Card payments are not set up on this server (STRIPE_SECRET_KEY)');
    return deps.stripe;
  }

  async function planOf(planId: string): Promise<PlanSlug> {
    const plan = await findSubscriptionPlan(db, planId);
    if (!plan) throw new ValidationError('planId', 'planId: no such plan');
    return choosablePlan(plan.slug as PlanSlug).slug;
  }

  /** An audit row in each team the subscription pays for; a card is kept there by its brand and last four digits only. */
  async function audit(trx: Db, subscription: SubscriptionRow, actorUserId: string, action: string, values: Pick<AuditEntry, 'before' | 'after'>) {
    for (const teamId of await billedTeamIds(trx, subscription.user_id)) {
      await writeAudit(trx, { teamId, actorUserId, action, targetType: 'subscription', targetId: subscription.id, ...values });
    }
  }

  const card = (method: { brand: string; last4: string }) => `${method.brand} ${method.last4}`;
  const defaultCard = async (trx: Db, subscriptionId: string) => {
    const method = (await listPaymentMethods(trx, subscriptionId)).find((row) => row.is_default);
    return method ? card(method) : null;
  };

  async function view(subscription: SubscriptionRow) {
    const trialEnd = subscription.trial_end;
    const methods = await listPaymentMethods(db, subscription.id);
    return {
      id: subscription.id,
      plan: subscription.plan_slug as PlanSlug,
      planName: planTerms(subscription.plan_slug as PlanSlug).name,
      status: subscription.status,
      trialEnd,
      isTrialing: subscription.status === 'trialing' && trialEnd !== null && trialEnd > now(),
      currentPeriodStart: subscription.current_period_start,
      currentPeriodEnd: subscription.current_period_end,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      canceledAt: subscription.canceled_at,
      hasPaymentMethod: methods.some((method) => method.is_default),
    };
  }

  const current = async (userId: string) => view(await subscriptionOf(userId));

  async function paymentMethods(userId: string) {
    return (await listPaymentMethods(db, (await subscriptionOf(userId)).id)).map(paymentMethodView);
  }

  /** Saves a card attached by a SetupIntent (or attaches it now); the first card, or `makeDefault`, becomes the default. */
  async function savePaymentMethod(userId: string, body: { paymentMethodId: string; makeDefault?: boolean | undefined }) {
    const stripe = stripeClient();
    const subscription = await subscriptionOf(userId);
    const customer = await ensureCustomer({ sql: deps.sql, stripe }, subscription);
    const method = await attachCard(stripe, customer, subscription.id, body.paymentMethodId);
    const kept = await db.transaction().execute(async (trx) => {
      const before = await defaultCard(trx, subscription.id);
      const saved = await keepCard(trx, subscription.id, method, body.makeDefault === true);
      await audit(trx, subscription, userId, 'billing.card_saved', { before: { defaultCard: before }, after: { card: card(saved), defaultCard: await defaultCard(trx, subscription.id) } });
      return saved;
    });
    if (kept.is_default) await makeStripeDefault(stripe, customer, subscription.id, method.id, randomUUID());
    await deps.refreshKeys(userId);
    return paymentMethodView(kept);
  }

  return {
    /** Takes one webhook delivery: its event id, once the signature holds. */
    async receiveWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ received: true; eventId: string }> {
      const secret = deps.stripeConfig.webhookSecret;
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

    current,

    /** The subscription, its plan as the pricing page lists it, its default card, and when it is next invoiced. */
    async details(userId: string) {
      const subscription = await subscriptionOf(userId);
      const plan = (await listSubscriptionPlans(db)).find((row) => row.slug === subscription.plan_slug)!;
      const card = (await listPaymentMethods(db, subscription.id)).find((row) => row.is_default);
      const ending = subscription.status === 'canceled' || subscription.cancel_at_period_end;
      return {
        subscription: await view(subscription),
        plan: {
          id: plan.id,
          name: plan.name,
          slug: plan.slug,
          description: plan.description,
          price: plan.price_micros === null ? null : Number(plan.price_micros) / 1_000_000,
          features: plan.features,
          createdAt: plan.created_at,
        },
        defaultPaymentMethod: card ? paymentMethodView(card) : null,
        // Invoice-build invoices a period an hour after it ends.
        nextInvoiceAt: subscription.current_period_end ? new Date(subscription.current_period_end.getTime() + 3_600_000) : ending ? null : subscription.trial_end,
      };
    },

    /** Chooses a paid plan now (see payments/billing.ts choosePlan), first saving `paymentMethodId` as the default card when given. */
    async create(userId: string, body: { planId: string; paymentMethodId?: string | undefined }) {
      const slug = await planOf(body.planId);
      let subscription = await subscriptionOf(userId);
      if ((subscription.status === 'active' || subscription.status === 'past_due') && !subscription.cancel_at_period_end) {
        throw new ConflictError('This account is already subscribed; change its plan with change-plan');
      }
      if (body.paymentMethodId) await savePaymentMethod(userId, { paymentMethodId: body.paymentMethodId, makeDefault: true });
      subscription = await subscriptionOf(userId);
      await db.transaction().execute(async (trx) => {
        await choosePlan(trx, subscription, slug, now());
        await audit(trx, subscription, userId, 'billing.subscribed', { before: { planSlug: subscription.plan_slug, status: subscription.status }, after: { planSlug: slug } });
      });
      await deps.refreshKeys(userId);
      return current(userId);
    },

    /** A Stripe Checkout Session (mode `setup`) for the plan: the card it takes becomes the default and the plan is chosen. */
    async createCheckoutSession(userId: string, body: { planId: string }) {
      const stripe = stripeClient();
      const slug = await planOf(body.planId);
      const subscription = await subscriptionOf(userId);
      const customer = await ensureCustomer({ sql: deps.sql, stripe }, subscription);
      const session = await callStripe('planId', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'setup',
            currency: 'gbp',
            customer,
            client_reference_id: subscription.id,
            metadata: { subscriptionId: subscription.id, planSlug: slug },
            success_url: `${deps.publicUrl}/dashboard/billing/success?session_id={CHECKOUT_SESSION_ID}`,
            cancel_url: `${deps.publicUrl}/dashboard/billing/cancel?session_id={CHECKOUT_SESSION_ID}`,
          },
          { idempotencyKey: stripeIdempotencyKey('checkout', subscription.id, slug, randomUUID()) },
        ),
      );
      return { sessionId: session.id, url: session.url! };
    },

    /** A checkout of this account's: Stripe's state of it now (a completed one is applied, once). */
    async checkout(userId: string, sessionId: string) {
      const subscription = await subscriptionOf(userId);
      const notFound = new NotFoundError('Checkout session');
      if (!deps.stripe) throw notFound;
      const stripe = deps.stripe;
      const session = await stripe.checkout.sessions.retrieve(sessionId).catch((error: unknown) => {
        throw (error as { statusCode?: number }).statusCode === 404 ? notFound : stripeFailure(error, 'sessionId');
      });
      if (session.metadata?.subscriptionId !== subscription.id) throw notFound;
      if (session.status === 'complete' && (await applyCheckoutSession({ sql: deps.sql, stripe, now }, session, userId))) await deps.refreshKeys(userId);
      return {
        id: session.id,
        status: (session.status ?? 'open') as 'open' | 'complete' | 'expired',
        paymentStatus: session.payment_status as 'paid' | 'unpaid' | 'no_payment_required',
      };
    },

    paymentMethods,

    /** A SetupIntent for Stripe.js to collect a card off-session; save it with savePaymentMethod. */
    async createSetupIntent(userId: string) {
      const stripe = stripeClient();
      const subscription = await subscriptionOf(userId);
      const customer = await ensureCustomer({ sql: deps.sql, stripe }, subscription);
      const intent = await callStripe('setupIntent', () =>
        stripe.setupIntents.create(
          { customer, usage: 'off_session', allowed_payment_method_types: ['card'], metadata: { subscriptionId: subscription.id } },
          { idempotencyKey: stripeIdempotencyKey('setup-intent', subscription.id, randomUUID()) },
        ),
      );
      return { setupIntentId: intent.id, clientSecret: intent.client_secret! };
    },

    savePaymentMethod,

    /** Makes one of the account's cards the one its invoices are charged to. */
    async setDefaultPaymentMethod(userId: string, body: { paymentMethodId: string }) {
      const stripe = stripeClient();
      const subscription = await subscriptionOf(userId);
      const kept = await findPaymentMethod(db, subscription.id, body.paymentMethodId);
      if (!kept || kept.detached_at) throw new NotFoundError('Payment method');
      await makeStripeDefault(stripe, subscription.stripe_customer_id!, subscription.id, kept.stripe_payment_method_id, randomUUID());
      await db.transaction().execute(async (trx) => {
        const before = await defaultCard(trx, subscription.id);
        await setDefaultPaymentMethod(trx, subscription.id, kept.stripe_payment_method_id);
        await audit(trx, subscription, userId, 'billing.default_card', { before: { defaultCard: before }, after: { defaultCard: card(kept) } });
      });
      return paymentMethodView((await findPaymentMethod(db, subscription.id, kept.stripe_payment_method_id))!);
    },

    /**
     * Removes a card (detached at Stripe). The default card of a subscription that is billed or
     * will be goes only when another card takes its place: the newest other one becomes the default.
     */
    async removePaymentMethod(userId: string, paymentMethodId: string) {
      const stripe = stripeClient();
      const subscription = await subscriptionOf(userId);
      const kept = await findPaymentMethod(db, subscription.id, paymentMethodId);
      if (!kept || kept.detached_at) throw new NotFoundError('Payment method');
      const others = (await listPaymentMethods(db, subscription.id)).filter((row) => row.id !== kept.id);
      const billed = subscription.status !== 'canceled' && !subscription.cancel_at_period_end && subscription.plan_slug !== 'free-trial';
      if (kept.is_default && others.length === 0 && billed && subscription.status !== 'trialing') {
        throw new ConflictError('This card pays for an active subscription: add another card before removing it, or cancel the subscription');
      }
      const successor = kept.is_default ? others[0] : undefined;
      if (successor) await makeStripeDefault(stripe, subscription.stripe_customer_id!, subscription.id, successor.stripe_payment_method_id, randomUUID());
      await callStripe('paymentMethodId', () =>
        stripe.paymentMethods.detach(paymentMethodId, {}, { idempotencyKey: stripeIdempotencyKey('detach-card', subscription.id, paymentMethodId) }),
      );
      await db.transaction().execute(async (trx) => {
        const before = await defaultCard(trx, subscription.id);
        await detachPaymentMethod(trx, subscription.id, paymentMethodId, now());
        if (successor) await setDefaultPaymentMethod(trx, subscription.id, successor.stripe_payment_method_id);
        await audit(trx, subscription, userId, 'billing.card_removed', { before: { card: card(kept), defaultCard: before }, after: { defaultCard: await defaultCard(trx, subscription.id) } });
      });
      await deps.refreshKeys(userId);
      return paymentMethods(userId);
    },

    /** Cancels now (the period is invoiced up to now) or at the end of the period (a trial: at its end). */
    async cancel(userId: string, body: { immediate: boolean }) {
      const subscription = await subscriptionOf(userId);
      if (subscription.status === 'canceled') throw new ConflictError('This subscription is already cancelled');
      const immediate = body.immediate || subscription.status === 'paused';
      await db.transaction().execute(async (trx) => {
        await cancelSubscription(trx, subscription.id, { immediate, at: now() });
        await audit(trx, subscription, userId, 'billing.cancelled', {
          before: { status: subscription.status, cancelAtPeriodEnd: subscription.cancel_at_period_end },
          after: immediate ? { status: 'canceled', cancelAtPeriodEnd: false } : { status: subscription.status, cancelAtPeriodEnd: true },
        });
      });
      await deps.refreshKeys(userId);
      return current(userId);
    },

    /** Moves to another paid plan from now; the plan history prorates the period's plan fee. */
    async changePlan(userId: string, body: { planId: string }) {
      const slug = await planOf(body.planId);
      const subscription = await subscriptionOf(userId);
      if (subscription.status === 'canceled' || subscription.status === 'paused') {
        throw new ConflictError(`This subscription is ${subscription.status === 'paused' ? 'paused' : 'cancelled'}: choose a plan with create or checkout`);
      }
      if (subscription.plan_slug === slug) throw new ValidationError('planId', `planId: the subscription is on the ${planTerms(slug).name} plan already`);
      const at = now();
      await db.transaction().execute(async (trx) => {
        await changeSubscriptionPlan(trx, { subscriptionId: subscription.id, planSlug: slug, at });
        await audit(trx, subscription, userId, 'billing.plan_changed', { before: { planSlug: subscription.plan_slug }, after: { planSlug: slug } });
      });
      await deps.refreshKeys(userId);
      return { ...(await current(userId)), changedAt: at, previousPlan: subscription.plan_slug as PlanSlug };
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
