// Subscription plans (seeded from core at start: ids and creation times stay as first
// stored) and each account's subscription, with the history of its plans.
import { sql } from 'kysely';
import type { SubscriptionStatus } from '../schema.ts';
import type { Db } from './db.ts';

export interface PlanSeed {
  slug: string;
  name: string;
  description: string;
  priceMicros: bigint | null;
  currency: string;
  listed: boolean;
  features: string[];
}

/** Inserts new plans and refreshes the terms of known ones, keeping their id and created_at. */
export async function upsertSubscriptionPlans(db: Db, plans: PlanSeed[], seededAt: Date): Promise<void> {
  if (plans.length === 0) return;
  await db
    .insertInto('subscription_plans')
    .values(
      plans.map((plan, index) => ({
        id: crypto.randomUUID(),
        slug: plan.slug,
        name: plan.name,
        description: plan.description,
        price_micros: plan.priceMicros,
        currency: plan.currency,
        listed: plan.listed,
        features: JSON.stringify(plan.features),
        // One millisecond apart, in core's order, so "ordered by createdAt" is core's order.
        created_at: new Date(seededAt.getTime() + index),
      })),
    )
    .onConflict((oc) =>
      oc.column('slug').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        description: eb.ref('excluded.description'),
        price_micros: eb.ref('excluded.price_micros'),
        currency: eb.ref('excluded.currency'),
        listed: eb.ref('excluded.listed'),
        features: eb.ref('excluded.features'),
      })),
    )
    .execute();
}

export async function listSubscriptionPlans(db: Db) {
  return db.selectFrom('subscription_plans').selectAll().orderBy('created_at').execute();
}

export async function findSubscriptionPlan(db: Db, id: string) {
  return db.selectFrom('subscription_plans').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Creates or updates an account's subscription; a plan other than the one in force is
 * recorded in its plan history from `at` (default now).
 */
export async function upsertSubscription(
  db: Db,
  subscription: { userId: string; planSlug: string; status: SubscriptionStatus; trialEnd: Date | null; at?: Date },
): Promise<void> {
  const at = subscription.at ?? new Date();
  const values = {
    plan_slug: subscription.planSlug,
    status: subscription.status,
    trial_end: subscription.trialEnd,
    updated_at: at,
  };
  const { id } = await db
    .insertInto('subscriptions')
    .values({ user_id: subscription.userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .returning('id')
    .executeTakeFirstOrThrow();
  await recordPlanInForce(db, id, subscription.planSlug, at);
}

/** Records that a subscription is on `planSlug` from `at`, unless that plan is already the one in force. */
export async function recordPlanInForce(db: Db, subscriptionId: string, planSlug: string, at: Date): Promise<void> {
  const latest = await db
    .selectFrom('subscription_plan_history')
    .select('plan_slug')
    .where('subscription_id', '=', subscriptionId)
    .orderBy('effective_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (latest?.plan_slug === planSlug) return;
  await db
    .insertInto('subscription_plan_history')
    .values({ subscription_id: subscriptionId, plan_slug: planSlug, effective_at: at })
    .onConflict((oc) => oc.columns(['subscription_id', 'effective_at']).doUpdateSet({ plan_slug: planSlug }))
    .execute();
}

/** An account's subscription, with whether a payment method is on file. */
export async function findSubscription(db: Db, userId: string) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .select(hasPaymentMethodOn('subscriptions.id').as('has_payment_method'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Whether the subscription whose id is at `subscriptionIdColumn` has a default payment method on file, as a selectable expression. */
export const hasPaymentMethodOn = (subscriptionIdColumn: string) =>
  sql<boolean>`exists (select 1 from payment_methods pm where pm.subscription_id = ${sql.ref(subscriptionIdColumn)} and pm.is_default and pm.detached_at is null)`;

/** The subscription that pays for a team: its creator's, with whether a payment method is on file. */
export async function findTeamSubscription(db: Db, teamId: string) {
  return db
    .selectFrom('teams')
    .innerJoin('subscriptions', 'subscriptions.user_id', 'teams.created_by')
    .select([
      'subscriptions.id',
      'subscriptions.user_id',
      'subscriptions.plan_slug',
      'subscriptions.status',
      'subscriptions.trial_end',
      'subscriptions.current_period_start',
      'subscriptions.current_period_end',
      hasPaymentMethodOn('subscriptions.id').as('has_payment_method'),
    ])
    .where('teams.id', '=', teamId)
    .executeTakeFirst();
}
