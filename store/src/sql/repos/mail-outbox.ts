// The mail outbox: every message is stored here first; the `mail` job delivers it
// (SMTP) or prints it to the log, then marks it. Job payloads carry only the id.
import type { Db } from './db.ts';

export async function insertOutboxMail(db: Db, mail: { id: string; to: string; subject: string; text: string }): Promise<void> {
  await db.insertInto('mail_outbox').values({ id: mail.id, to_address: mail.to, subject: mail.subject, text_body: mail.text }).execute();
}

export async function findOutboxMail(db: Db, id: string) {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function markOutboxMail(db: Db, id: string, outcome: { status: 'sent' | 'logged'; at: Date }): Promise<void> {
  await db.updateTable('mail_outbox').set({ status: outcome.status, sent_at: outcome.at }).where('id', '=', id).execute();
}

export async function recordOutboxFailure(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error }))
    .where('id', '=', id)
    .execute();
}

export async function listOutboxMail(db: Db, to: string) {
  return db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('created_at').execute();
}

/** Deletes the messages delivered (sent or logged) that were stored before `before`; returns how many. */
export async function deleteDeliveredMailBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('mail_outbox').where('status', '!=', 'pending').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
