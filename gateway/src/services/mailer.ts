// Sends mail the one way Spendgate does: store it in the outbox, then hand its id to
// the `mail` job (SMTP, or the log when no SMTP_URL is set).
import { randomUUID } from 'node:crypto';
import { insertOutboxMail, type JobQueue, type SqlStore } from '@spendgate/store';
import type { JobPayloads } from '@spendgate/worker';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export function createMailer(deps: { sql: SqlStore; queue: JobQueue<JobPayloads> }) {
  return {
    async send(mail: Mail): Promise<void> {
      const id = randomUUID();
      await insertOutboxMail(deps.sql.db, { id, ...mail });
      await deps.queue.enqueue('mail', { outboxId: id }, { jobId: `mail-${id}` });
    },
  };
}

export type Mailer = ReturnType<typeof createMailer>;
