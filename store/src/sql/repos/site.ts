// The public site's content: FAQs and the dynamic contact form with its submissions.
import type { Db } from './db.ts';

export async function listFaqs(db: Db) {
  return db.selectFrom('faqs').select(['id', 'question', 'answer', 'position']).orderBy('position').orderBy('created_at').execute();
}

export async function insertFaq(db: Db, faq: { id: string; question: string; answer: string; position: number }) {
  return db.insertInto('faqs').values(faq).returning(['id', 'question', 'answer', 'position']).executeTakeFirstOrThrow();
}

export async function updateFaq(db: Db, id: string, changes: { question?: string; answer?: string; position?: number }) {
  return db
    .updateTable('faqs')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returning(['id', 'question', 'answer', 'position'])
    .executeTakeFirst();
}

export async function deleteFaq(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('faqs').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function nextFaqPosition(db: Db): Promise<number> {
  const row = await db.selectFrom('faqs').select((eb) => eb.fn.max('position').as('last')).executeTakeFirst();
  return (row?.last ?? 0) + 10;
}

export async function findContactForm(db: Db, slug: string) {
  return db.selectFrom('contact_forms').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function insertContactSubmission(db: Db, submission: { id: string; formId: string; values: Record<string, string> }) {
  await db
    .insertInto('contact_form_submissions')
    .values({ id: submission.id, form_id: submission.formId, submitted_values: JSON.stringify(submission.values) })
    .execute();
}

export async function listContactSubmissions(db: Db, formId: string) {
  return db.selectFrom('contact_form_submissions').selectAll().where('form_id', '=', formId).orderBy('created_at').execute();
}
