// Spend digests: each team admin's choice (weekly or monthly, or none), who reads one, and
// the claim that makes a period's digest go once.
import type { DigestFrequency } from '@spendgate/core';
import type { Db } from './db.ts';

export async function findSpendDigest(db: Db, teamId: string, userId: string): Promise<DigestFrequency | undefined> {
  return (await db.selectFrom('spend_digests').select('frequency').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst())?.frequency;
}

/** Sets an admin's digest for the team (null: none). */
export async function setSpendDigest(db: Db, teamId: string, userId: string, frequency: DigestFrequency | null, at: Date): Promise<void> {
  if (frequency === null) {
    await db.deleteFrom('spend_digests').where('team_id', '=', teamId).where('user_id', '=', userId).execute();
    return;
  }
  await db
    .insertInto('spend_digests')
    .values({ team_id: teamId, user_id: userId, frequency, updated_at: at })
    .onConflict((conflict) => conflict.columns(['team_id', 'user_id']).doUpdateSet({ frequency, updated_at: at }))
    .execute();
}

/** Every digest asked for by someone who is still an admin of the team, with what the e-mail needs. */
export async function listSpendDigestReaders(db: Db) {
  return db
    .selectFrom('spend_digests as digest')
    .innerJoin('team_members as member', (join) => join.onRef('member.team_id', '=', 'digest.team_id').onRef('member.user_id', '=', 'digest.user_id'))
    .innerJoin('teams as team', 'team.id', 'digest.team_id')
    .innerJoin('users as user', 'user.id', 'digest.user_id')
    .select(['digest.team_id as teamId', 'digest.user_id as userId', 'digest.frequency', 'team.name as teamName', 'team.time_zone as timeZone', 'user.email'])
    .where('member.role', '=', 'ADMIN')
    .orderBy('digest.team_id')
    .orderBy('digest.user_id')
    .execute();
}

export type SpendDigestReader = Awaited<ReturnType<typeof listSpendDigestReaders>>[number];

/** An admin of the team as a reader of `frequency`'s digest, asked for or not; undefined for anyone else. */
export async function findSpendDigestReader(db: Db, teamId: string, userId: string, frequency: DigestFrequency): Promise<SpendDigestReader | undefined> {
  const admin = await db
    .selectFrom('team_members as member')
    .innerJoin('teams as team', 'team.id', 'member.team_id')
    .innerJoin('users as user', 'user.id', 'member.user_id')
    .select(['member.team_id as teamId', 'member.user_id as userId', 'team.name as teamName', 'team.time_zone as timeZone', 'user.email'])
    .where('member.team_id', '=', teamId)
    .where('member.user_id', '=', userId)
    .where('member.role', '=', 'ADMIN')
    .executeTakeFirst();
  return admin && { ...admin, frequency };
}

/** Claims a period's digest for one reader: true for the one claim that may send it. */
export async function claimSpendDigestSend(db: Db, send: { teamId: string; userId: string; frequency: DigestFrequency; periodStart: string }): Promise<boolean> {
  const claimed = await db
    .insertInto('spend_digest_sends')
    .values({ team_id: send.teamId, user_id: send.userId, frequency: send.frequency, period_start: send.periodStart })
    .onConflict((conflict) => conflict.doNothing())
    .returning('team_id')
    .executeTakeFirst();
  return claimed !== undefined;
}
