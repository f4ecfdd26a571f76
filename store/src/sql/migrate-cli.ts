// `npm run migrate`: applies pending migrations to the configured database and exits.
import { loadConfig } from '../config.ts';
import { openSqlStore, sqlLocationFor } from './connect.ts';
import { migrateToLatest } from './migrate.ts';
import { ensureUsagePartitions } from './usage-partitions.ts';

const config = await loadConfig();
const store = await openSqlStore(sqlLocationFor(config));
try {
  const applied = await migrateToLatest(store.db);
  await ensureUsagePartitions(store.db, new Date());
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await store.close();
}
