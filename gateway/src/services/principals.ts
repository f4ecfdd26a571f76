/**
 * Who is calling the data plane: an issued key resolved to its team, group and
 * connection (secret decrypted), cached in-process by key hash. A warm request never
 * touches the database; a revoked key is dropped from every gateway via the cache.
 */
import type { KeyCache, KeyKind, SqlStore } from '@spendgate/store';
import { findKeyPrincipal } from '@spendgate/store';
import { findProvider } from '../providers/registry.ts';
import type { ProviderAdapter } from '../providers/types.ts';
import type { Envelope } from '../security/envelope.ts';
import { hashIssuedKey, isWellFormedKey } from '../security/issued-keys.ts';

export interface Principal {
  keyId: string;
  teamId: string;
  groupId: string;
  kind: KeyKind;
  connection: { id: string; adapter: ProviderAdapter; baseUrl: string; secret: string } | null;
}

export function createPrincipalService(deps: { sql: SqlStore; envelope: Envelope; cache: KeyCache<Principal> }) {
  return {
    /** The principal of a presented key, or undefined for an unknown, malformed or revoked key. */
    async authenticate(presentedKey: string): Promise<Principal | undefined> {
      if (!isWellFormedKey(presentedKey)) return undefined;
      const keyHash = hashIssuedKey(presentedKey);
      const cached = deps.cache.get(keyHash);
      if (cached) return cached;

      const row = await findKeyPrincipal(deps.sql.db, keyHash);
      if (!row) return undefined;
      const adapter = row.provider ? findProvider(row.provider) : undefined;
      const connection =
        row.connectionId && adapter && row.baseUrl && row.secretCiphertext && row.wrappedDataKey && row.secretKeyVersion !== null
          ? {
              id: row.connectionId,
              adapter,
              baseUrl: row.baseUrl,
              secret: deps.envelope.decryptSecret(
                row.wrappedDataKey,
                { teamId: row.teamId, connectionId: row.connectionId, version: row.secretKeyVersion },
                row.secretCiphertext,
              ),
            }
          : null;
      const principal: Principal = { keyId: row.keyId, teamId: row.teamId, groupId: row.groupId, kind: row.kind, connection };
      deps.cache.set(keyHash, principal);
      return principal;
    },
  };
}

export type PrincipalService = ReturnType<typeof createPrincipalService>;
