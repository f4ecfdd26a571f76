// @spendgate/store: everything that talks to PostgreSQL/PGlite and Redis.
export * from './config.ts';
export * from './keycache/index.ts';
export * from './ledger/index.ts';
export * from './open.ts';
export * from './queue/index.ts';
export * from './sql/connect.ts';
export * from './sql/migrate.ts';
export * from './sql/repos/audit.ts';
export * from './sql/repos/catalog.ts';
export * from './sql/repos/connections.ts';
export * from './sql/repos/db.ts';
export * from './sql/repos/groups.ts';
export * from './sql/repos/keys.ts';
export * from './sql/repos/teams.ts';
export * from './sql/repos/usage.ts';
export * from './sql/repos/users.ts';
export * from './sql/schema.ts';
