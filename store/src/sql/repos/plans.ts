// Subscription plans (seeded from core at start: ids and creation times stay as first
// stored), each account's subscription, and the overages a paid plan charges for.
import type { OverageKind, SubscriptionStatus } from '../schema.ts';
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

export async function upsertSubscription(
  db: Db,
  subscription: { userId: string; planSlug: string; status: SubscriptionStatus; trialEnd: Date | null },
): Promise<void> {
  const values = {
    plan_slug: subscription.planSlug,
    status: subscription.status,
    trial_end: subscription.trialEnd,
    updated_at: new Date(),
  };
  await db
    .insertInto('subscriptions')
    .values({ user_id: subscription.userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}

export async function findSubscription(db: Db, userId: string) {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The subscription that pays for a team: its creator's. */
export async function findTeamSubscription(db: Db, teamId: string) {
  return db
    .selectFrom('teams')
    .innerJoin('subscriptions', 'subscriptions.user_id', 'teams.created_by')
    .select(['subscriptions.user_id', 'subscriptions.plan_slug', 'subscriptions.status', 'subscriptions.trial_end'])
    .where('teams.id', '=', teamId)
    .executeTakeFirst();
}

export async function openOverage(
  db: Db,
  overage: { teamId: string; planSlug: string; kind: OverageKind; targetId: string; unitPriceMicros: bigint; currency: string },
): Promise<void> {
  await db
    .insertInto('plan_overages')
    .values({
      id: crypto.randomUUID(),
      team_id: overage.teamId,
      plan_slug: overage.planSlug,
      kind: overage.kind,
      target_id: overage.targetId,
      unit_price_micros: overage.unitPriceMicros,
      currency: overage.currency,
    })
    .execute();
}

/** Ends the open overage of this unit, if one was charged for it. */
export async function closeOverage(db: Db, teamId: string, kind: OverageKind, targetId: string): Promise<void> {
  await db
    .updateTable('plan_overages')
    .set({ ended_at: new Date() })
    .where('team_id', '=', teamId)
    .where('kind', '=', kind)
    .where('target_id', '=', targetId)
    .where('ended_at', 'is', null)
    .execute();
}

