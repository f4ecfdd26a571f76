// Users: accounts that sign in to the console. Emails are stored lower-cased.
import type { User } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertUser(
  db: Db,
  user: { id: string; email: string; name: string; passwordHash: string },
): Promise<User> {
  return db
    .insertInto('users')
    .values({ id: user.id, email: user.email.toLowerCase(), name: user.name, password_hash: user.passwordHash })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function findUserById(db: Db, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}
