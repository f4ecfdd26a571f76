// Table types for Kysely: one Database interface, as the migrations create it.
// int8 columns come back as bigint (see connect.ts), timestamps as Date.
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json<T> = ColumnType<T, string | undefined, string>;

export type TeamRole = 'ADMIN' | 'MEMBER';
export type GroupRole = 'ADMIN' | 'MAINTAINER' | 'OBSERVER';
export type KeyKind = 'byok' | 'optimised' | 'byom';

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  avatar: string | null;
  metadata: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface TeamsTable {
  id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: CreatedAt;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: TeamRole;
  created_at: CreatedAt;
}

export interface SyntheticGroupsTable {
  id: string;
  team_id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: CreatedAt;
}

export interface SyntheticGroupMembersTable {
  group_id: string;
  user_id: string;
  role: GroupRole;
  created_at: CreatedAt;
}

export interface AuditLogTable {
  id: Generated<bigint>;
  team_id: string;
  actor_user_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  details: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface TeamDataKeysTable {
  team_id: string;
  key_version: number;
  wrapped_key: Uint8Array;
  created_at: CreatedAt;
}

export interface ProviderConnectionsTable {
  id: string;
  team_id: string;
  provider: string;
  name: string;
  base_url: string;
  secret_ciphertext: Uint8Array;
  secret_key_version: number;
  secret_tail: string;
  status: ColumnType<string, string | undefined, string>;
  created_by: string;
  created_at: CreatedAt;
}

export interface IssuedKeysTable {
  id: string;
  team_id: string;
  group_id: string;
  connection_id: string | null;
  kind: KeyKind;
  name: string;
  key_hash: string;
  key_prefix: string;
  created_by: string;
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface PriceCatalogVersionsTable {
  id: string;
  effective_from: Date | string;
  currency: string;
  model_count: number;
  created_at: CreatedAt;
}

export interface UsageRequestIdsTable {
  request_id: string;
}

export interface UsageEventsTable {
  request_id: string;
  occurred_at: Date | string;
  team_id: string;
  group_id: string;
  key_id: string;
  connection_id: string | null;
  provider: string;
  model: string;
  endpoint: string;
  status_code: number;
  streamed: boolean;
  estimated: boolean;
  input_tokens: bigint;
  cached_read_tokens: bigint;
  cache_write_5m_tokens: bigint;
  cache_write_1h_tokens: bigint;
  output_tokens: bigint;
  reasoning_tokens: bigint;
  cost_micros: bigint | null;
  currency: string;
  price_version: string | null;
  latency_ms: number;
}

export interface Database {
  users: UsersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  synthetic_groups: SyntheticGroupsTable;
  synthetic_group_members: SyntheticGroupMembersTable;
  audit_log: AuditLogTable;
  team_data_keys: TeamDataKeysTable;
  provider_connections: ProviderConnectionsTable;
  issued_keys: IssuedKeysTable;
  price_catalog_versions: PriceCatalogVersionsTable;
  usage_request_ids: UsageRequestIdsTable;
  usage_events: UsageEventsTable;
}

export type User = Selectable<UsersTable>;
export type Team = Selectable<TeamsTable>;
export type SyntheticGroup = Selectable<SyntheticGroupsTable>;
export type ProviderConnection = Selectable<ProviderConnectionsTable>;
export type IssuedKey = Selectable<IssuedKeysTable>;
export type NewUsageEvent = Insertable<UsageEventsTable>;
