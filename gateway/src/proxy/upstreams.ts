/**
 * Where a request goes. BYOK and BYOM keys go to the connection they are bound to;
 * optimised keys go to one of the operator's own provider accounts
 * (OPTIMISED_UPSTREAMS) whose catalog prices the requested model; `auto` lets the router
 * choose among them (see routing.ts).
 */
import { AppError, type PriceCatalog, priceVersionAt } from '@spendgate/core';
import type { Config } from '@spendgate/store';
import type { Dispatcher } from 'undici';
import { operatorAccountFor, operatorAccounts, operatorAgent } from '../providers/operator-upstreams.ts';
import type { ConnectionOptions, ProviderAdapter } from '../providers/types.ts';
import type { Principal } from './principals.ts';

export interface Upstream {
  /** The team's connection, or null for an operator upstream. */
  connectionId: string | null;
  adapter: ProviderAdapter;
  baseUrl: string;
  options: ConnectionOptions;
  secret: string;
  /** False when the team has disabled the connection: its keys are refused. */
  active: boolean;
  /** Why the connection's base URL is not allowed under the current allow-list (saved under an older one). */
  urlProblem?: string | undefined;
  /** The agent its calls go through: for a team's connection, one whose connects are checked. */
  dispatcher: Dispatcher;
}

export function createUpstreamResolver(deps: { optimisedUpstreams: Config['optimisedUpstreams']; catalog: PriceCatalog }) {
  const operatorUpstreams: Upstream[] = operatorAccounts(deps.optimisedUpstreams).map((account) => ({
    connectionId: null,
    ...account,
    active: true,
    dispatcher: operatorAgent,
  }));

  const operatorUpstreamFor = (model: string, at: Date): Upstream | undefined => operatorAccountFor(operatorUpstreams, deps.catalog, model, at);

  return {
    /** The operator account that serves a model for optimised keys, if any does. */
    operatorUpstreamFor,

    /**
     * Where a request for `model` goes: the key's connection (or, for a model override
     * through another, `connectionId` of the team's), or the operator account that serves
     * it. Throws when the connection is gone, disabled or no longer allowed.
     */
    resolve(principal: Principal, model: string, at: Date, connectionId?: string): Upstream {
      if (principal.kind !== 'optimised') {
        const overridden = connectionId !== undefined;
        const connection = overridden ? principal.overrideConnections.get(connectionId) : principal.connection;
        const which = overridden ? `connection ${connectionId}, which this key's model override goes through,` : 'provider connection of this key';
        if (!connection) {
          throw new AppError(400, 'no_connection', overridden ? `The ${which} no longer exists` : 'This key is not bound to a provider connection');
        }
        if (!connection.active) {
          throw new AppError(403, 'connection_disabled', `The ${which} is disabled`);
        }
        if (connection.urlProblem) {
          const whose = overridden ? `The baseUrl of the ${which}` : "The provider connection's baseUrl";
          throw new AppError(403, 'connection_not_allowed', `${whose} is no longer allowed: it ${connection.urlProblem}`);
        }
        return connection;
      }
      const upstream = operatorUpstreamFor(model, at);
      if (!upstream) {
        throw new AppError(400, 'model_not_available', `Model "${model}" is not available for optimised keys`);
      }
      return upstream;
    },

    /** The models a key may use: its upstreams' priced models, by provider; `auto` first for optimised keys. */
    modelsFor(principal: Principal, at: Date): { id: string; ownedBy: string }[] {
      const version = priceVersionAt(deps.catalog, at);
      const upstreams = principal.kind === 'optimised' ? operatorUpstreams : principal.connection ? [principal.connection] : [];
      const priced = upstreams.flatMap(({ adapter }) =>
        Object.keys(version?.prices[adapter.catalogProvider] ?? {})
          .sort()
          .map((id) => ({ id, ownedBy: adapter.id })),
      );
      return principal.kind === 'optimised' ? [{ id: 'auto', ownedBy: 'spendgate' }, ...priced] : priced;
    },
  };
}

export type UpstreamResolver = ReturnType<typeof createUpstreamResolver>;
