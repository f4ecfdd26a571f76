// /api/budgets: caps on a key, a synthetic group or a team, in GBP (at most £1,000,000,000).
import { BUDGET_MODES, BUDGET_SCOPES, BUDGET_WINDOWS, decimalToMicros, MICROS_PER_UNIT, microsToDecimalString } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BudgetService } from '../../control/budgets.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Budget } from '../answers.ts';
import { ok } from '../reply.ts';
import { signedIn } from '../session.ts';

/** The largest budget, in GBP: 10^15 micros, exact as a double and far inside bigint's range. */
const MAX_BUDGET_GBP = 1_000_000_000;
const AMOUNT_RULE = `must be a positive GBP amount with at most 6 decimals, at most ${MAX_BUDGET_GBP}`;
const Amount = z.union([z.string().max(32, AMOUNT_RULE), z.number()], { error: AMOUNT_RULE }).transform((value, context) => {
  const micros = decimalToMicros(value);
  if (micros === undefined || micros === 0n || micros > BigInt(MAX_BUDGET_GBP) * MICROS_PER_UNIT) {
    context.addIssue({ code: 'custom', message: AMOUNT_RULE });
    return z.NEVER;
  }
  return micros;
});
const AlertAt = z.array(z.number().int().min(1).max(1000)).max(10).default([50, 80, 100]);
const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

const BudgetBody = z.object({
  scope: oneOf(BUDGET_SCOPES),
  scopeId: z.uuid('must be the id of the key, group or team'),
  amount: Amount,
  window: oneOf(BUDGET_WINDOWS),
  mode: oneOf(BUDGET_MODES),
  alertAt: AlertAt,
});
const BudgetQuery = z.object({
  teamId: z.uuid('must be a team id').optional(),
  scope: oneOf(BUDGET_SCOPES).optional(),
  scopeId: z.uuid('must be the id of the key, group or team').optional(),
});
const BudgetParams = z.object({ id: z.uuid('must be a budget id') });
const TeamQuery = z.object({ teamId: z.uuid('must be a team id') });
const BudgetChanges = z
  .object({ amount: Amount.optional(), window: oneOf(BUDGET_WINDOWS).optional(), mode: oneOf(BUDGET_MODES).optional(), alertAt: AlertAt.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change amount, window, mode or alertAt' });

type BudgetWithSpend = Awaited<ReturnType<BudgetService['list']>>[number];

function budgetView({ budget, spentMicros, reservedMicros, remainingMicros, resetsAt }: BudgetWithSpend) {
  return {
    id: budget.id,
    teamId: budget.team_id,
    scope: budget.scope,
    scopeId: budget.scope_id,
    currency: budget.currency,
    amount: microsToDecimalString(budget.amount_micros),
    window: budget.window,
    mode: budget.mode,
    alertAt: budget.alert_at,
    spent: microsToDecimalString(spentMicros),
    reserved: microsToDecimalString(reservedMicros),
    remaining: microsToDecimalString(remainingMicros),
    resetsAt,
    /** What the budget does with a model that has no price: a hard one cannot bound its cost, so it refuses it (402). */
    unpricedModels: budget.mode === 'hard' ? ('refused' as const) : ('admitted' as const),
  };
}

export const budgetRoutes =
  (deps: { budgets: BudgetService }): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.post('/', { schema: { summary: 'Create a budget (team admins)', body: BudgetBody, response: { 201: answer(Budget) } } }, async (request, reply) => {
      const { amount, ...input } = request.body;
      const created = await deps.budgets.create(signedIn(request).userId, { ...input, amountMicros: amount });
      return reply.code(201).send(ok(budgetView(created), 'Budget created'));
    });
    api.get('/', { schema: { summary: 'Budgets with their spend and what remains', querystring: BudgetQuery, response: { 200: answer(z.array(Budget)) } } }, async (request) =>
      ok((await deps.budgets.list(signedIn(request).userId, request.query)).map(budgetView)),
    );
    api.patch('/:id', { schema: { summary: 'Change a budget', params: BudgetParams, querystring: TeamQuery, body: BudgetChanges, response: { 200: answer(Budget) } } }, async (request) => {
      const { amount, ...changes } = request.body;
      const updated = await deps.budgets.update(signedIn(request).userId, request.query.teamId, request.params.id, {
        ...changes,
        ...(amount !== undefined && { amountMicros: amount }),
      });
      return ok(budgetView(updated), 'Budget updated');
    });
    api.delete('/:id', { schema: { summary: 'Delete a budget', params: BudgetParams, querystring: TeamQuery, response: { 200: answer(z.null()) } } }, async (request) => {
      await deps.budgets.remove(signedIn(request).userId, request.query.teamId, request.params.id);
      return ok(null, 'Budget deleted');
    });
  };
