// A request body's fingerprint is keyed: HMAC-SHA256 under a key of the team's own (derived
// from the master key, never stored) instead of a plain SHA-256, which anyone holding a copy
// of the table could match against a guessed prompt. The column is renamed for what it now
// holds, and the plain hashes already recorded are erased rather than kept beside the keyed
// ones: they are the leak, and they could never match a keyed one (repeats sent before this
// migration are not counted by the duplicate-requests detector). The partial (team, hash)
// index follows the rename.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table usage_events rename column body_sha256 to body_hmac`.execute(db);
  await sql`update usage_events set body_hmac = null where body_hmac is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update usage_events set body_hmac = null where body_hmac is not null`.execute(db);
  await sql`alter table usage_events rename column body_hmac to body_sha256`.execute(db);
}
