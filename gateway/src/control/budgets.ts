// Budgets: caps on what a key, a synthetic group or a team may spend (GBP). Reads
// answer the spend of the current window from the spend ledger; changes drop the
// covered keys from the principal cache so gateways enforce them at once.
import { randomUUID } from 'node:crypto';
import { AppError, type BudgetMode, type BudgetScope, type BudgetWindow, budgetWindowAt, NotFoundError, ValidationError } from '@spendgate/core';
import {
  budgetCounter,
  deleteBudget,
  findBudget,
  findGroupForUser,
  findKeyForUser,
  findTeam,
  insertBudget,
  type KeyCache,
  keyHashesInScope,
  LedgerUnavailableError,
  listBudgets,
  type SpendLedger,
  type SqlStore,
  updateBudget,
  writeAudit,
} from '@spendgate/store';
import type { Access } from './access.ts';

export interface BudgetInput {
  scope: BudgetScope;
  scopeId: string;
  amountMicros: bigint;
  window: BudgetWindow;
  mode: BudgetMode;
  alertAt: number[];
}

type BudgetRow = Awaited<ReturnType<typeof listBudgets>>[number];

/** What the audit log keeps of a budget: its amount in integer micro-units of its currency. */
const auditedBudget = (budget: Pick<BudgetRow, 'amount_micros' | 'currency' | 'window' | 'mode' | 'alert_at'>) => ({
  amountMicros: budget.amount_micros.toString(),
  currency: budget.currency,
  window: budget.window,
  mode: budget.mode,
  alertAt: budget.alert_at,
});

export function createBudgetService(deps: {
  sql: SqlStore;
  access: Access;
  ledger: Pick<SpendLedger, 'read'>;
  keyCache: Pick<KeyCache<unknown>, 'invalidate'>;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  /** The team a budget's target belongs to, refusing targets the caller cannot see. */
  async function teamOfTarget(userId: string, scope: BudgetScope, scopeId: string): Promise<string> {
    if (scope === 'team') return scopeId;
    if (scope === 'group') {
      const group = await findGroupForUser(db, scopeId, userId);
      if (!group) throw new ValidationError('scopeId', 'scopeId: no such synthetic group in your teams');
      return group.team_id;
    }
    const key = await findKeyForUser(db, scopeId, userId);
    if (!key) throw new ValidationError('scopeId', 'scopeId: no such key in your teams');
    return key.team_id;
  }

  const teamTimeZone = async (teamId: string) => (await findTeam(db, teamId))?.time_zone ?? 'UTC';

  /** A budget with the spend of its current window (in the team's time zone). */
  async function withSpend(budget: BudgetRow, timeZone: string) {
    const at = now();
    const counter = budgetCounter(deps.sql, budget.team_id, timeZone, { id: budget.id, scope: budget.scope, scopeId: budget.scope_id, amountMicros: budget.amount_micros, window: budget.window, mode: budget.mode }, at);
    const balance = await deps.ledger.read(counter.scope, counter.seed).catch((error: unknown) => {
      if (error instanceof LedgerUnavailableError) throw new AppError(503, 'budget_unavailable', 'Budget spend cannot be read right now; try again shortly');
      throw error;
    });
    const spent = balance.spentMicros;
    const remaining = budget.amount_micros - spent;
    return {
      budget,
      spentMicros: spent,
      reservedMicros: balance.reservedMicros,
      remainingMicros: remaining < 0n ? 0n : remaining,
      resetsAt: budgetWindowAt(budget.window, at, timeZone).end,
    };
  }

  async function dropCoveredKeys(teamId: string, scope: string, scopeId: string) {
    for (const hash of await keyHashesInScope(db, teamId, scope, scopeId)) await deps.keyCache.invalidate(hash);
  }

  return {
    async create(userId: string, input: BudgetInput) {
      const teamId = await teamOfTarget(userId, input.scope, input.scopeId);
      await deps.access.team(teamId, userId, 'budget.manage');
      const budget = await db.transaction().execute(async (trx) => {
        const row = await insertBudget(trx, {
          id: randomUUID(),
          team_id: teamId,
          scope: input.scope,
          scope_id: input.scopeId,
          amount_micros: input.amountMicros,
          window: input.window,
          mode: input.mode,
          alert_at: JSON.stringify(input.alertAt),
          created_by: userId,
        });
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'budget.created',
          targetType: 'budget',
          targetId: row.id,
          details: { scope: row.scope, scopeId: row.scope_id },
          after: auditedBudget(row),
        });
        return row;
      });
      await dropCoveredKeys(teamId, budget.scope, budget.scope_id);
      return withSpend(budget, await teamTimeZone(teamId));
    },

    async list(userId: string, filter: { teamId?: string | undefined; scope?: BudgetScope | undefined; scopeId?: string | undefined }) {
      const teamId = filter.teamId ?? (filter.scope && filter.scopeId ? await teamOfTarget(userId, filter.scope, filter.scopeId) : undefined);
      if (!teamId) throw new ValidationError('teamId', 'teamId is required unless scope and scopeId name the target');
      await deps.access.team(teamId, userId, 'budget.view');
      const timeZone = await teamTimeZone(teamId);
      return Promise.all((await listBudgets(db, teamId, filter)).map((budget) => withSpend(budget, timeZone)));
    },

    async update(userId: string, teamId: string, id: string, changes: Partial<Pick<BudgetInput, 'amountMicros' | 'window' | 'mode' | 'alertAt'>>) {
      await deps.access.team(teamId, userId, 'budget.manage');
      const budget = await db.transaction().execute(async (trx) => {
        const before = await findBudget(trx, teamId, id);
        const row = await updateBudget(trx, teamId, id, {
          ...(changes.amountMicros !== undefined && { amount_micros: changes.amountMicros }),
          ...(changes.window !== undefined && { window: changes.window }),
          ...(changes.mode !== undefined && { mode: changes.mode }),
          ...(changes.alertAt !== undefined && { alert_at: JSON.stringify(changes.alertAt) }),
        });
        if (!row) throw new NotFoundError('Budget');
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'budget.updated',
          targetType: 'budget',
          targetId: id,
          details: { changed: Object.keys(changes) },
          ...(before && { before: auditedBudget(before) }),
          after: auditedBudget(row),
        });
        return row;
      });
      await dropCoveredKeys(teamId, budget.scope, budget.scope_id);
      return withSpend(budget, await teamTimeZone(teamId));
    },

    async remove(userId: string, teamId: string, id: string) {
      await deps.access.team(teamId, userId, 'budget.manage');
      const budget = await findBudget(db, teamId, id);
      if (!budget) throw new NotFoundError('Budget');
      await db.transaction().execute(async (trx) => {
        await deleteBudget(trx, teamId, id);
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'budget.deleted',
          targetType: 'budget',
          targetId: id,
          details: { scope: budget.scope, scopeId: budget.scope_id },
          before: auditedBudget(budget),
        });
      });
      await dropCoveredKeys(teamId, budget.scope, budget.scope_id);
    },
  };
}

export type BudgetService = ReturnType<typeof createBudgetService>;
