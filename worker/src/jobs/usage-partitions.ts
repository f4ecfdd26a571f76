// usage-partitions: keeps usage_events' monthly partitions (store's usage-partitions.ts):
// made three months ahead, months back-filled into DEFAULT given their own, and months
// wholly past the deployment's retention dropped whole, with their claimed request ids.
import { type Logger, type SqlStore, upkeepUsagePartitions } from '@spendgate/store';

export function createUsagePartitionsProcessor(deps: { sql: Pick<SqlStore, 'db'>; log: Logger; usageEventRetentionDays: number }) {
  return async (): Promise<void> => {
    const upkeep = await upkeepUsagePartitions(deps.sql.db, new Date(), deps.usageEventRetentionDays);
    deps.log.info({ upkeep }, 'usage-partitions: partitions kept');
  };
}
