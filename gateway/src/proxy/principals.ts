/**
 * Who is calling the data plane: an issued key resolved to its team, group and
 * connection (secret decrypted, its base URL checked again under the current
 * allow-list), cached in-process by key hash. A warm request never
 * touches the database; a revoked key is dropped from every gateway via the cache.
 */
import {
  type Budget,
  type KeySettings,
  type ModelOverride,
  PLANS,
  type PlanSlug,
  type PlanTerms,
  type PriceCatalog,
  planTerms,
  type SubscriptionState,
} from '@spendgate/core';
import type { Envelope, KeyCache, KeyKind, KeyPrincipalRow, OutboundGuard, SqlStore } from '@spendgate/store';
import { findConnectionsWithSecrets, findKeyPrincipal, listBudgetsForKey } from '@spendgate/store';
import type { CaptureTerms } from '../capture/prompt-capture.ts';
import { findProvider } from '../providers/registry.ts';
import type { ConnectionOptions } from '../providers/types.ts';
import { hashIssuedKey, isWellFormedKey } from '../security/issued-keys.ts';
import { loadTeamPrices } from '../team-prices.ts';
import type { Upstream } from './upstreams.ts';

export interface Principal {
  keyId: string;
  teamId: string;
  groupId: string;
  kind: KeyKind;
  /** The terms of the team's plan (billing rules, limits). */
  plan: PlanTerms;
  /** The subscription that pays for the team, as admission's access rule reads it (null: none). */
  subscription: SubscriptionState | null;
  /** A demo team's key: its requests are never charged (core's chargedBill). */
  isDemo: boolean;
  /** The team's own prices, as a one-version catalog consulted before list prices. */
  priceOverrides: PriceCatalog | undefined;
  /** Whether the team lets requests for models without a price through. */
  allowUnpricedModels: boolean;
  /** The budgets on the key, its group and its team. */
  budgets: Budget[];
  /** The team's time zone: budget windows follow its calendar. */
  timeZone: string;
  /** The key's rate limits, timeout and routing policy. */
  settings: KeySettings;
  /** The connection a BYOK/BYOM key is bound to (optimised keys have none). */
  connection: Upstream | null;
  /** The team's connections the key's model overrides go through, by id (one deleted since is absent). */
  overrideConnections: ReadonlyMap<string, Upstream>;
  /** Set when the team and the key's group both capture prompts (and the team has a data key). */
  capture: CaptureTerms | undefined;
}

/** The key's override of a requested model, if it has one. */
export const modelOverrideFor = (principal: Principal, model: string): ModelOverride | undefined =>
  principal.settings.modelOverrides?.find((override) => override.replace === model);

export function createPrincipalService(deps: {
  sql: SqlStore;
  envelope: Envelope;
  cache: KeyCache<Principal>;
  outbound: OutboundGuard;
  /** Days a capture is kept when its team sets none. */
  captureRetentionDays: number;
}) {
  /** Loads under way, so a burst of requests with a key not cached yet loads it once. */
  const loading = new Map<string, Promise<Principal | undefined>>();

  /** A team connection as the data plane calls it (secret decrypted, base URL checked under the current allow-list). */
  function upstreamOf(
    teamId: string,
    wrappedDataKey: KeyPrincipalRow['wrappedDataKey'],
    connection: { id: string | null; provider: string | null; baseUrl: string | null; status: string | null; secretCiphertext: Uint8Array | null; secretKeyVersion: number | null; options: unknown },
  ): Upstream | null {
    const adapter = connection.provider ? findProvider(connection.provider) : undefined;
    const { id, baseUrl, secretCiphertext, secretKeyVersion } = connection;
    if (!id || !adapter || !baseUrl || !secretCiphertext || !wrappedDataKey || secretKeyVersion === null) return null;
    return {
      connectionId: id,
      adapter,
      baseUrl,
      options: (connection.options ?? {}) as ConnectionOptions,
      active: connection.status === 'active',
      urlProblem: deps.outbound.problem(baseUrl),
      dispatcher: deps.outbound.dispatcher,
      secret: deps.envelope.decryptSecret(wrappedDataKey, { teamId, connectionId: id, version: secretKeyVersion }, secretCiphertext),
    };
  }

  /** The connections a key's model overrides name, by id. */
  async function overrideConnectionsOf(teamId: string, wrappedDataKey: KeyPrincipalRow['wrappedDataKey'], settings: KeySettings): Promise<Map<string, Upstream>> {
    const ids = [...new Set((settings.modelOverrides ?? []).flatMap((override) => (override.connectionId === undefined ? [] : [override.connectionId])))];
    const connections = new Map<string, Upstream>();
    for (const row of await findConnectionsWithSecrets(deps.sql.db, teamId, ids)) {
      const upstream = upstreamOf(teamId, wrappedDataKey, {
        id: row.id,
        provider: row.provider,
        baseUrl: row.base_url,
        status: row.status,
        secretCiphertext: row.secret_ciphertext,
        secretKeyVersion: row.secret_key_version,
        options: row.options,
      });
      if (upstream) connections.set(row.id, upstream);
    }
    return connections;
  }

  async function load(keyHash: string): Promise<Principal | undefined> {
    const row = await findKeyPrincipal(deps.sql.db, keyHash);
    if (!row) return undefined;
    const connection = upstreamOf(row.teamId, row.wrappedDataKey, {
      id: row.connectionId,
      provider: row.provider,
      baseUrl: row.baseUrl,
      status: row.connectionStatus,
      secretCiphertext: row.secretCiphertext,
      secretKeyVersion: row.secretKeyVersion,
      options: row.connectionOptions,
    });
    const plan = PLANS.find((candidate) => candidate.slug === row.planSlug) ?? planTerms('free-trial');
    const principal: Principal = {
      keyId: row.keyId,
      teamId: row.teamId,
      groupId: row.groupId,
      kind: row.kind,
      plan,
      subscription:
        row.planSlug === null || row.subscriptionStatus === null
          ? null
          : { planSlug: row.planSlug as PlanSlug, status: row.subscriptionStatus, trialEnd: row.trialEnd, hasPaymentMethod: row.hasPaymentMethod },
      isDemo: row.isDemo,
      priceOverrides: await loadTeamPrices(deps.sql, row.teamId),
      allowUnpricedModels: row.allowUnpricedModels,
      budgets: (await listBudgetsForKey(deps.sql.db, row)).map((budget) => ({
        id: budget.id,
        scope: budget.scope,
        scopeId: budget.scope_id,
        amountMicros: budget.amount_micros,
        window: budget.window,
        mode: budget.mode,
      })),
      timeZone: row.timeZone,
      settings: row.settings,
      connection,
      overrideConnections: await overrideConnectionsOf(row.teamId, row.wrappedDataKey, row.settings),
      capture:
        row.teamCaptures && row.groupCaptures && row.wrappedDataKey && row.dataKeyVersion !== null
          ? {
              wrappedDataKey: row.wrappedDataKey,
              keyVersion: row.dataKeyVersion,
              retentionDays: Math.min(row.captureRetentionDays ?? deps.captureRetentionDays, plan.promptRetentionMaxDays),
              patterns: row.captureRedactionPatterns ?? [],
            }
          : undefined,
    };
    deps.cache.set(keyHash, principal);
    return principal;
  }

  return {
    /** The principal of a presented key, or undefined for an unknown, malformed or revoked key. */
    async authenticate(presentedKey: string): Promise<Principal | undefined> {
      if (!isWellFormedKey(presentedKey)) return undefined;
      const keyHash = hashIssuedKey(presentedKey);
      const cached = deps.cache.get(keyHash);
      if (cached) return cached;
      let pending = loading.get(keyHash);
      if (pending === undefined) {
        pending = load(keyHash).finally(() => loading.delete(keyHash));
        loading.set(keyHash, pending);
      }
      return pending;
    },
  };
}

export type PrincipalService = ReturnType<typeof createPrincipalService>;
