// Budgets of a team, and the ones that apply to a request made with a key.
import type { Insertable, Updateable } from 'kysely';
import type { BudgetsTable } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertBudget(db: Db, budget: Insertable<BudgetsTable>) {
  return db.insertInto('budgets').values(budget).returningAll().executeTakeFirstOrThrow();
}

export async function listBudgets(db: Db, teamId: string, filter: { scope?: string | undefined; scopeId?: string | undefined } = {}) {
  let query = db.selectFrom('budgets').selectAll().where('team_id', '=', teamId);
  if (filter.scope) query = query.where('scope', '=', filter.scope as BudgetsTable['scope']);
  if (filter.scopeId) query = query.where('scope_id', '=', filter.scopeId);
  return query.orderBy('created_at').execute();
}

export async function findBudget(db: Db, teamId: string, id: string) {
  return db.selectFrom('budgets').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

export async function updateBudget(db: Db, teamId: string, id: string, changes: Updateable<BudgetsTable>) {
  return db
    .updateTable('budgets')
    .set({ ...changes, updated_at: new Date() })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteBudget(db: Db, teamId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('budgets').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The budgets on a key, its group and its team. */
export async function listBudgetsForKey(db: Db, key: { teamId: string; groupId: string; keyId: string }) {
  return db
    .selectFrom('budgets')
    .selectAll()
    .where('team_id', '=', key.teamId)
    .where((eb) =>
      eb.or([
        eb.and([eb('scope', '=', 'key'), eb('scope_id', '=', key.keyId)]),
        eb.and([eb('scope', '=', 'group'), eb('scope_id', '=', key.groupId)]),
        eb.and([eb('scope', '=', 'team'), eb('scope_id', '=', key.teamId)]),
      ]),
    )
    .execute();
}

/** Hashes of the live keys a budget scope covers (to drop them from the principal cache). */
export async function keyHashesInScope(db: Db, teamId: string, scope: string, scopeId: string): Promise<string[]> {
  let query = db.selectFrom('issued_keys').select('key_hash').where('team_id', '=', teamId).where('revoked_at', 'is', null);
  if (scope === 'key') query = query.where('id', '=', scopeId);
  if (scope === 'group') query = query.where('group_id', '=', scopeId);
  return (await query.execute()).map((row) => row.key_hash);
}
