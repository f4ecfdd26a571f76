// The one filter every usage read takes (events, rollup cells, exports, the request log):
// a team's usage in [from, to), narrowed by group, key, connection, model or provider, and the SQL
// conditions it makes on a relation with usage_events' or usage_rollups' columns.
import { type RawBuilder, sql } from 'kysely';

export interface UsageFilter {
  teamId: string;
  from: Date;
  to: Date;
  groupId?: string | undefined;
  keyId?: string | undefined;
  connectionId?: string | undefined;
  model?: string | undefined;
  provider?: string | undefined;
}

/** The filter's conditions on `alias`, whose time column is `timeColumn` (occurred_at or bucket_start). */
export function usageConditions(filter: UsageFilter, alias: string, timeColumn: 'occurred_at' | 'bucket_start'): RawBuilder<unknown> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql.join(
    [
      sql`${column('team_id')} = ${filter.teamId}`,
      sql`${column(timeColumn)} >= ${filter.from}`,
      sql`${column(timeColumn)} < ${filter.to}`,
      ...(filter.groupId === undefined ? [] : [sql`${column('group_id')} = ${filter.groupId}`]),
      ...(filter.keyId === undefined ? [] : [sql`${column('key_id')} = ${filter.keyId}`]),
      ...(filter.connectionId === undefined ? [] : [sql`${column('connection_id')} = ${filter.connectionId}`]),
      ...(filter.model === undefined ? [] : [sql`${column('model')} = ${filter.model}`]),
      ...(filter.provider === undefined ? [] : [sql`${column('provider')} = ${filter.provider}`]),
    ],
    sql` and `,
  );
}
