// Account changes after registration: profile, metadata, password, verified email and
// the Google account linked to a user (or taking over an account never verified).
import type { User } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertVerifiedUser(
  db: Db,
  user: { id: string; email: string; name: string; passwordHash: string | null; avatar?: string | null; googleSubject?: string },
): Promise<User> {
  return db
    .insertInto('users')
    .values({
      id: user.id,
      email: user.email.toLowerCase(),
      name: user.name,
      password_hash: user.passwordHash,
      avatar: user.avatar ?? null,
      google_subject: user.googleSubject ?? null,
      email_verified_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateUserProfile(db: Db, id: string, changes: { name?: string; avatar?: string | null }) {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Merges the given keys into the user's metadata (a null value removes a key). */
export async function mergeUserMetadata(db: Db, id: string, metadata: Record<string, unknown>) {
  const user = await db.selectFrom('users').select('metadata').where('id', '=', id).forUpdate().executeTakeFirst();
  if (!user) return undefined;
  const merged: Record<string, unknown> = { ...user.metadata };
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return db.updateTable('users').set({ metadata: JSON.stringify(merged) }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Sets a new password and raises the session version, so older sessions stop working. */
export async function setUserPassword(db: Db, id: string, passwordHash: string): Promise<User> {
  return db
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, session_version: eb('session_version', '+', 1) }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function markEmailVerified(db: Db, id: string, at: Date) {
  return db
    .updateTable('users')
    .set((eb) => ({ email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(at)) }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function findUserByGoogleSubject(db: Db, subject: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('google_subject', '=', subject).executeTakeFirst();
}

/** Links a Google account to a user; Google has verified the email, so it counts as verified. */
export async function linkGoogleAccount(db: Db, id: string, subject: string, at: Date) {
  return db
    .updateTable('users')
    .set((eb) => ({ google_subject: subject, email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(at)) }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Gives an account whose email was never verified to the Google account that proves that
 * email: the password goes, every older session ends (the session version rises), and the
 * name and avatar become Google's.
 */
export async function takeOverWithGoogle(db: Db, id: string, google: { subject: string; name: string; avatar: string | null }, at: Date) {
  return db
    .updateTable('users')
    .set((eb) => ({
      google_subject: google.subject,
      password_hash: null,
      name: google.name,
      avatar: google.avatar,
      email_verified_at: at,
      session_version: eb('session_version', '+', 1),
    }))
    .where('id', '=', id)
    .where('email_verified_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
