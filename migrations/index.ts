// Every migration in order. Migrations are frozen in time: they import kysely only,
// never application code. Add a file, then list it here.
import type { Migration } from 'kysely';
import * as accounts from './20261122_0001_accounts.ts';
import * as keysAndConnections from './20261122_0002_keys_and_connections.ts';
import * as usageAndPrices from './20261122_0003_usage_and_prices.ts';

export const migrations: Record<string, Migration> = {
  '20261122_0001_accounts': accounts,
  '20261122_0002_keys_and_connections': keysAndConnections,
  '20261122_0003_usage_and_prices': usageAndPrices,
};
