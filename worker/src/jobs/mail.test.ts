import { findOutboxMail, insertOutboxMail, type SqlStore } from '@spendgate/store';
import { openTestSqlStore } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailProcessor } from './mail.ts';

describe('mail processor without SMTP (the embedded default)', () => {
  let store: SqlStore;
  beforeAll(async () => {
    store = await openTestSqlStore('pglite');
  });
  afterAll(() => store?.close());

  it('prints the message to the log once, keeps it in the outbox and marks it logged', async () => {
    const lines: string[] = [];
    const deliver = createMailProcessor({ sql: store, mail: { smtpUrl: undefined, from: 'Spendgate <no-reply@x>' }, log: { info: (line) => lines.push(line) } });
    const id = crypto.randomUUID();
    await insertOutboxMail(store.db, { id, to: 'ada@example.com', subject: 'Your code', text: 'Use this code:\n\n    123456\n' });
    await deliver({ outboxId: id });
    await deliver({ outboxId: id });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Mail to ada@example.com');
    expect(lines[0]).toContain('123456');
    expect(await findOutboxMail(store.db, id)).toMatchObject({ status: 'logged', text_body: 'Use this code:\n\n    123456\n' });
  });
});
