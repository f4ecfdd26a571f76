/**
 * Provider connections: a team's account with a provider (its API key envelope-
 * encrypted under the team's data key; only a masked tail is ever shown). Team admins
 * create, edit, disable, test and delete them; members see them masked. Team-supplied
 * URLs must not point to private, loopback or link-local addresses, by their text or by
 * what their name resolves to, unless the operator allow-lists the host; a saved URL the
 * current allow-list refuses is shown with its problem and refused when used. Tests
 * (live calls) go through the outbound guard, follow no redirect and are rate-limited.
 * A change that affects keys drops them from every gateway's key cache.
 */
import { randomUUID } from 'node:crypto';
import { AppError, decide, NotFoundError, type PriceCatalog, priceVersionAt, type TeamRole, ValidationError } from '@spendgate/core';
import type { Envelope, OutboundGuard } from '@spendgate/store';
import {
  deleteConnection,
  findConnection,
  findConnectionForUser,
  findTeamDataKey,
  insertConnection,
  insertTeamDataKeyIfAbsent,
  type KeyCache,
  listConnections,
  listLiveKeys,
  listTeamsOfUser,
  type SqlStore,
  updateConnection,
  writeAudit,
} from '@spendgate/store';
import { type Dispatcher, request } from 'undici';
import { findProvider, providers } from '../providers/registry.ts';
import type { ProviderAdapter } from '../providers/types.ts';
import type { RateLimiter } from '../security/rate-limit.ts';
import { type Access, enforce } from './access.ts';
import type { UsageAnalytics } from './usage-analytics.ts';

export const DATA_KEY_VERSION = 1;
const TEST_TIMEOUT_MS = 10_000;
export const CONNECTION_STATUSES = ['active', 'disabled'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

type ConnectionRow = {
  id: string;
  team_id: string;
  provider: string;
  name: string;
  base_url: string;
  secret_tail: string;
  status: string;
  options: Record<string, unknown>;
  created_at: Date;
};

/** A connection as the API shows it; `baseUrlProblem` says why its URL is refused now (null when allowed). */
export const connectionView = (connection: ConnectionRow, outbound: Pick<OutboundGuard, 'problem'>) => ({
  id: connection.id,
  teamId: connection.team_id,
  provider: connection.provider,
  name: connection.name,
  baseUrl: connection.base_url,
  baseUrlProblem: outbound.problem(connection.base_url) ?? null,
  status: connection.status,
  options: connection.options,
  apiKeyTail: `••••${connection.secret_tail}`,
  createdAt: connection.created_at,
});

/** Why a live call with these settings failed, in words a person can act on; undefined when it worked. */
async function probe(adapter: ProviderAdapter, baseUrl: string, secret: string, dispatcher: Dispatcher): Promise<string | undefined> {
  try {
    const response = await request(`${baseUrl}/models`, {
      dispatcher,
      method: 'GET',
      headers: adapter.authHeaders(secret),
      headersTimeout: TEST_TIMEOUT_MS,
      bodyTimeout: TEST_TIMEOUT_MS,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    await response.body.dump();
    if (response.statusCode < 300) return undefined;
    if (response.statusCode === 401 || response.statusCode === 403) {
      return `${adapter.name} refused the API key (HTTP ${response.statusCode})`;
    }
    if (response.statusCode === 404) return `${baseUrl} answered 404: check that the base URL is the API's root (often ending in /v1)`;
    if (response.statusCode < 400) return `${baseUrl} answered HTTP ${response.statusCode} (a redirect, not followed): use the URL it points to if you trust it`;
    return `${adapter.name} answered HTTP ${response.statusCode}`;
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as { code?: string; name?: string }).code ?? (error as { name?: string }).name ?? '';
    if (/TIMEOUT|AbortError|TimeoutError/i.test(code)) return `${adapter.name} did not answer within ${TEST_TIMEOUT_MS / 1000} seconds`;
    return `${baseUrl} could not be reached (${code || 'network error'})`;
  }
}

export function createConnectionService(deps: {
  sql: SqlStore;
  envelope: Envelope;
  access: Access;
  usage: UsageAnalytics;
  catalog: PriceCatalog;
  keyCache: Pick<KeyCache<unknown>, 'invalidate'>;
  outbound: Pick<OutboundGuard, 'check' | 'problem' | 'dispatcher'>;
  limiter: Pick<RateLimiter, 'hit'>;
}) {
  const { db } = deps.sql;

  async function teamDataKey(teamId: string) {
    return (
      (await findTeamDataKey(db, teamId)) ??
      (await insertTeamDataKeyIfAbsent(db, {
        teamId,
        keyVersion: DATA_KEY_VERSION,
        wrappedKey: deps.envelope.newDataKey(teamId, DATA_KEY_VERSION).wrapped,
      }))
    );
  }

  function adapterFor(provider: string): ProviderAdapter {
    const adapter = findProvider(provider);
    if (!adapter) throw new ValidationError('provider', `provider: unknown provider "${provider}"`);
    return adapter;
  }

  const view = (connection: ConnectionRow) => connectionView(connection, deps.outbound);
  /** What the audit log keeps of a connection: never its key, only the last four characters the console shows. */
  const auditedValues = (connection: Pick<ConnectionRow, 'name' | 'base_url' | 'options' | 'secret_tail'>) => ({
    name: connection.name,
    baseUrl: connection.base_url,
    options: connection.options,
    apiKeyTail: connection.secret_tail,
  });

  /** The base URL as the URL parser writes it (what calls will reach), once its text and addresses are allowed. */
  async function checkedBaseUrl(adapter: ProviderAdapter, requested: string | undefined): Promise<string> {
    const given = requested ?? adapter.defaultBaseUrl;
    if (!given) throw new ValidationError('baseUrl', `baseUrl is required for provider "${adapter.id}"`);
    const problem = await deps.outbound.check(given);
    if (problem) throw new ValidationError('baseUrl', `baseUrl ${problem}`);
    return new URL(given).href.replace(/\/+$/, '');
  }

  async function connectionFor(userId: string, connectionId: string, action: 'connection.view' | 'connection.manage') {
    const connection = await findConnectionForUser(db, connectionId, userId);
    enforce(action, { teamRole: connection?.teamRole ?? null }, 'Connection');
    return connection!;
  }

  async function dropKeysOf(teamId: string, connectionId: string) {
    for (const key of await listLiveKeys(db, teamId, { connectionId })) await deps.keyCache.invalidate(key.key_hash);
  }

  async function secretOf(connection: { id: string; team_id: string }) {
    const stored = (await findConnection(db, connection.team_id, connection.id))!;
    const dataKey = (await findTeamDataKey(db, connection.team_id))!;
    return deps.envelope.decryptSecret(
      dataKey.wrapped_key,
      { teamId: connection.team_id, connectionId: connection.id, version: stored.secret_key_version },
      stored.secret_ciphertext,
    );
  }

  return {
    /** Every provider the registry knows, with what a connection to it needs and the models priced for it. */
    providers() {
      const version = priceVersionAt(deps.catalog, new Date());
      return providers.map((adapter) => ({
        id: adapter.id,
        name: adapter.name,
        format: adapter.format,
        authFields: [{ name: 'apiKey', label: 'API key', type: 'secret', required: !adapter.selfHosted }],
        baseUrl: {
          default: adapter.defaultBaseUrl ?? null,
          required: adapter.defaultBaseUrl === undefined,
          rules: 'http(s) only; private, loopback and link-local addresses only when the operator allow-lists the host',
        },
        models: Object.keys(version?.prices[adapter.catalogProvider] ?? {}).sort(),
        optionFields: (adapter.connectionOptions ?? []).map((option) => ({ ...option })),
      }));
    },

    /**
     * Creates a connection. A self-hosted (BYOM) endpoint may have no API key: it is then
     * stored as an empty secret.
     */
    async create(
      userId: string,
      input: { teamId: string; provider: string; name: string; apiKey: string; baseUrl?: string | undefined; options?: Record<string, string> | undefined },
    ) {
      await deps.access.team(input.teamId, userId, 'connection.manage');
      const adapter = adapterFor(input.provider);
      const baseUrl = await checkedBaseUrl(adapter, input.baseUrl);
      const dataKey = await teamDataKey(input.teamId);
      const id = randomUUID();
      const ciphertext = deps.envelope.encryptSecret(dataKey.wrapped_key, { teamId: input.teamId, connectionId: id, version: dataKey.key_version }, input.apiKey);
      return db.transaction().execute(async (trx) => {
        const connection = await insertConnection(trx, {
          id,
          team_id: input.teamId,
          provider: adapter.id,
          name: input.name,
          base_url: baseUrl,
          secret_ciphertext: ciphertext,
          secret_key_version: dataKey.key_version,
          secret_tail: input.apiKey.slice(-4),
          options: JSON.stringify(input.options ?? {}),
          created_by: userId,
        });
        await writeAudit(trx, {
          teamId: input.teamId,
          actorUserId: userId,
          action: 'connection.created',
          targetType: 'provider_connection',
          targetId: id,
          details: { provider: adapter.id, name: input.name },
          after: auditedValues(connection),
        });
        return view(connection);
      });
    },

    async list(userId: string, teamId: string | undefined) {
      const teams = await listTeamsOfUser(db, userId);
      if (teamId && !teams.some((team) => team.id === teamId)) throw new NotFoundError('Team');
      const teamIds = teamId ? [teamId] : teams.map((team) => team.id);
      // This month's usage through a connection is the team's: only its admins see it.
      const adminTeamIds = teams.filter((team) => teamIds.includes(team.id) && decide('team.usage.view', { teamRole: team.role as TeamRole }) === 'allowed').map((team) => team.id);
      const [listed, month] = await Promise.all([listConnections(db, teamIds), deps.usage.monthByConnection(adminTeamIds)]);
      return listed.map((connection) => ({ ...view(connection), thisMonth: month.of({ id: connection.id, teamId: connection.team_id }) }));
    },

    async get(userId: string, connectionId: string) {
      return view(await connectionFor(userId, connectionId, 'connection.view'));
    },

    async update(
      userId: string,
      connectionId: string,
      changes: { name?: string | undefined; apiKey?: string | undefined; baseUrl?: string | undefined; options?: Record<string, string> | undefined },
    ) {
      const connection = await connectionFor(userId, connectionId, 'connection.manage');
      const adapter = adapterFor(connection.provider);
      const update: Parameters<typeof updateConnection>[3] = {};
      if (changes.name !== undefined) update.name = changes.name;
      if (changes.baseUrl !== undefined) update.base_url = await checkedBaseUrl(adapter, changes.baseUrl);
      if (changes.options !== undefined) update.options = JSON.stringify(changes.options);
      if (changes.apiKey !== undefined) {
        const dataKey = await teamDataKey(connection.team_id);
        update.secret_ciphertext = deps.envelope.encryptSecret(
          dataKey.wrapped_key,
          { teamId: connection.team_id, connectionId, version: dataKey.key_version },
          changes.apiKey,
        );
        update.secret_key_version = dataKey.key_version;
        update.secret_tail = changes.apiKey.slice(-4);
      }
      const updated = await db.transaction().execute(async (trx) => {
        const row = (await updateConnection(trx, connection.team_id, connectionId, update))!;
        await writeAudit(trx, {
          teamId: connection.team_id,
          actorUserId: userId,
          action: 'connection.updated',
          targetType: 'provider_connection',
          targetId: connectionId,
          details: { changed: Object.keys(changes).filter((field) => changes[field as keyof typeof changes] !== undefined) },
          before: auditedValues(connection),
          after: auditedValues(row),
        });
        return row;
      });
      await dropKeysOf(connection.team_id, connectionId);
      return view(updated);
    },

    async setStatus(userId: string, connectionId: string, status: ConnectionStatus) {
      const connection = await connectionFor(userId, connectionId, 'connection.manage');
      await db.transaction().execute(async (trx) => {
        await updateConnection(trx, connection.team_id, connectionId, { status });
        await writeAudit(trx, {
          teamId: connection.team_id,
          actorUserId: userId,
          action: 'connection.status_changed',
          targetType: 'provider_connection',
          targetId: connectionId,
          details: { from: connection.status, to: status },
          before: { status: connection.status },
          after: { status },
        });
      });
      await dropKeysOf(connection.team_id, connectionId);
      return { id: connectionId, status };
    },

    async remove(userId: string, connectionId: string) {
      const connection = await connectionFor(userId, connectionId, 'connection.manage');
      await dropKeysOf(connection.team_id, connectionId);
      await db.transaction().execute(async (trx) => {
        await deleteConnection(trx, connection.team_id, connectionId);
        await writeAudit(trx, {
          teamId: connection.team_id,
          actorUserId: userId,
          action: 'connection.deleted',
          targetType: 'provider_connection',
          targetId: connectionId,
          details: { provider: connection.provider, name: connection.name },
          before: auditedValues(connection),
        });
      });
      return { id: connectionId };
    },

    /**
     * A cheap live call (list models) with a stored connection or with settings not yet
     * saved (for a team the caller manages connections of). Calls that would go out are
     * rate-limited per account and per client address.
     */
    async test(
      caller: { userId: string; ip: string },
      input: {
        connectionId?: string | undefined;
        teamId?: string | undefined;
        provider?: string | undefined;
        apiKey?: string | undefined;
        baseUrl?: string | undefined;
      },
    ) {
      let adapter: ProviderAdapter;
      let baseUrl: string;
      let secret: string;
      if (input.connectionId) {
        const connection = await connectionFor(caller.userId, input.connectionId, 'connection.manage');
        adapter = adapterFor(connection.provider);
        baseUrl = await checkedBaseUrl(adapter, connection.base_url);
        secret = await secretOf(connection);
      } else {
        if (!input.teamId) throw new ValidationError('teamId', 'teamId is required when no connectionId is given');
        if (!input.provider) throw new ValidationError('provider', 'provider is required when no connectionId is given');
        await deps.access.team(input.teamId, caller.userId, 'connection.manage');
        adapter = adapterFor(input.provider);
        // A team's own model server may take no key, as its connection may be saved without one.
        if (!input.apiKey && !adapter.selfHosted) throw new ValidationError('apiKey', 'apiKey is required when no connectionId is given');
        baseUrl = await checkedBaseUrl(adapter, input.baseUrl);
        secret = input.apiKey ?? '';
      }
      await deps.limiter.hit('connection-test', { account: caller.userId, ip: caller.ip });
      const startedAt = performance.now();
      const failure = await probe(adapter, baseUrl, secret, deps.outbound.dispatcher);
      if (failure) throw new AppError(422, 'connection_failed', failure);
      return { ok: true, provider: adapter.id, baseUrl, latencyMs: Math.round(performance.now() - startedAt) };
    },

    /** The usage through a connection over a date range: the team's, so for its admins (usageScope's rules). */
    async usage(userId: string, connectionId: string, range: { startDate?: string | undefined; endDate?: string | undefined }) {
      const connection = await connectionFor(userId, connectionId, 'connection.view');
      return deps.usage.summary(userId, { teamId: connection.team_id, connectionId, ...range });
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
