// What repositories take first: the database or a transaction, so callers compose.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.ts';

export type Db = Kysely<Database> | Transaction<Database>;
