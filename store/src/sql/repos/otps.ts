// One-time codes sent by email: stored as a keyed hash, single use, expiring, with the
// wrong tries counted. A new code for the same email and purpose replaces older ones.
import type { OtpPurpose } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertOtp(
  db: Db,
  otp: { id: string; email: string; purpose: OtpPurpose; codeHash: string; expiresAt: Date },
): Promise<void> {
  await db
    .updateTable('email_otps')
    .set({ consumed_at: new Date() })
    .where('email', '=', otp.email)
    .where('purpose', '=', otp.purpose)
    .where('consumed_at', 'is', null)
    .execute();
  await db
    .insertInto('email_otps')
    .values({ id: otp.id, email: otp.email, purpose: otp.purpose, code_hash: otp.codeHash, expires_at: otp.expiresAt })
    .execute();
}

/** The code in force for an email and purpose: not consumed, locked for update. */
export async function findLiveOtp(db: Db, email: string, purpose: OtpPurpose) {
  return db
    .selectFrom('email_otps')
    .selectAll()
    .where('email', '=', email)
    .where('purpose', '=', purpose)
    .where('consumed_at', 'is', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export async function countOtpAttempt(db: Db, id: string): Promise<void> {
  await db.updateTable('email_otps').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', id).execute();
}

/** Ends a code: `verified` when it was entered correctly, else locked after too many tries. */
export async function consumeOtp(db: Db, id: string, at: Date, verified: boolean): Promise<void> {
  await db
    .updateTable('email_otps')
    .set({ consumed_at: at, verified_at: verified ? at : null })
    .where('id', '=', id)
    .execute();
}

/** True when a code for this email and purpose was used successfully since `since`. */
export async function otpConfirmedSince(db: Db, email: string, purpose: OtpPurpose, since: Date): Promise<boolean> {
  const row = await db
    .selectFrom('email_otps')
    .select('id')
    .where('email', '=', email)
    .where('purpose', '=', purpose)
    .where('verified_at', '>=', since)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the codes created before `before` (expired long since); returns how many. */
export async function deleteOtpsCreatedBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('email_otps').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
