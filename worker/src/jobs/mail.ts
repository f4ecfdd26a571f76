// mail: delivers one outbox message — over SMTP when SMTP_URL is set, otherwise prints
// it to the log (the embedded default, so a local user can read a code). The job
// carries only the outbox id; a message already delivered is not sent again.
import type { MailConfig, MailJob, SqlStore } from '@spendgate/store';
import { findOutboxMail, markOutboxMail, recordOutboxFailure } from '@spendgate/store';
import nodemailer from 'nodemailer';

/** What the mail job needs of the logger: a line for each message printed instead of sent. */
export interface MailLog {
  info(message: string): void;
}

export function createMailProcessor(deps: { sql: Pick<SqlStore, 'db'>; mail: MailConfig; log: MailLog }) {
  const transport = deps.mail.smtpUrl ? nodemailer.createTransport(deps.mail.smtpUrl) : undefined;
  return async (job: MailJob): Promise<void> => {
    const mail = await findOutboxMail(deps.sql.db, job.outboxId);
    if (mail?.status !== 'pending') return;
    if (!transport) {
      deps.log.info(`Mail to ${mail.to_address} (no SMTP_URL set, so it is printed here)\nSubject: ${mail.subject}\n\n${mail.text_body}`);
      await markOutboxMail(deps.sql.db, mail.id, { status: 'logged', at: new Date() });
      return;
    }
    try {
      await transport.sendMail({ from: deps.mail.from, to: mail.to_address, subject: mail.subject, text: mail.text_body });
    } catch (error) {
      await recordOutboxFailure(deps.sql.db, mail.id, error instanceof Error ? error.message : String(error));
      throw error;
    }
    await markOutboxMail(deps.sql.db, mail.id, { status: 'sent', at: new Date() });
  };
}
