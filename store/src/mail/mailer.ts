// Sends mail the one way Spendgate does: store it in the outbox (inside the caller's
// transaction when there is one), then — once that has committed — hand its id to the
// `mail` job (SMTP, or the log when no SMTP_URL is set).
import { randomUUID } from 'node:crypto';
import type { JobPayloads } from '../queue/jobs.ts';
import type { JobQueue } from '../queue/types.ts';
import type { SqlStore } from '../sql/connect.ts';
import type { Db } from '../sql/repos/db.ts';
import { insertOutboxMail } from '../sql/repos/mail-outbox.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Hands a stored message to the mail job; call it after the storing transaction commits. */
export type Dispatch = () => Promise<void>;

export function createMailer(deps: { sql: SqlStore; queue: JobQueue<JobPayloads> }) {
  async function store(db: Db, mail: Mail): Promise<Dispatch> {
    const id = randomUUID();
    await insertOutboxMail(db, { id, ...mail });
    return () => deps.queue.enqueue('mail', { outboxId: id }, { jobId: `mail-${id}` });
  }
  return {
    store,
    async send(mail: Mail): Promise<void> {
      await (await store(deps.sql.db, mail))();
    },
  };
}

export type Mailer = ReturnType<typeof createMailer>;
