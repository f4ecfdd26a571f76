/**
 * A key's settings checked against what the key can reach, before they are stored:
 * routing steers optimised keys only, and each model override sends a model that is
 * served where the override sends it — through the key's connection or the team
 * connection it names, a model the price catalog (or the team's own prices) lists for
 * that connection's provider, any model on a self-hosted endpoint; for optimised keys, a
 * model one of Spendgate's accounts serves. A refusal is a 400 naming the field.
 */
import { findPrice, type KeySettings, modelOverrideProblem, type PriceCatalog, ValidationError } from '@spendgate/core';
import { type Db, type KeyKind, listConnections, listPriceOverrides } from '@spendgate/store';
import { findProvider } from '../providers/registry.ts';

/** The key the settings are for: its team, kind and connection (optimised keys have none). */
export interface SettingsOwner {
  teamId: string;
  kind: KeyKind;
  connectionId: string | null;
}

export function createKeySettingsCheck(deps: {
  catalog: PriceCatalog;
  /** The price-catalog providers of Spendgate's own accounts (OPTIMISED_UPSTREAMS), which serve optimised keys. */
  operatorProviders: readonly string[];
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

  /** Why `model` cannot be sent where an override of a key of `owner` sends it, or undefined when it can. */
  async function servability(db: Db, owner: SettingsOwner) {
    const at = now();
    const connections = await listConnections(db, [owner.teamId]);
    const teamPrices = await listPriceOverrides(db, owner.teamId);
    const listed = (provider: string, model: string) =>
      findPrice(deps.catalog, provider, model, at) !== undefined || teamPrices.some((price) => price.provider === provider && price.model === model);
    return (model: string, connectionId: string | undefined): string | undefined => {
      if (owner.kind === 'optimised') {
        return deps.operatorProviders.some((provider) => listed(provider, model)) ? undefined : `"${model}" is not a model Spendgate's accounts serve`;
      }
      const connection = connections.find((candidate) => candidate.id === (connectionId ?? owner.connectionId));
      if (connection === undefined) return connectionId === undefined ? 'the key has no connection to send it through' : 'no such connection in this team';
      const adapter = findProvider(connection.provider);
      if (adapter?.selfHosted) return undefined;
      if (adapter && listed(adapter.catalogProvider, model)) return undefined;
      return `"${model}" is not a model the price catalog lists for ${adapter?.name ?? connection.provider} (a team admin can add a price for it)`;
    };
  }

  /** Throws a ValidationError naming the field when `settings` do not suit the key (`db`: a transaction the caller holds, or the database). */
  return async function checkKeySettings(db: Db, owner: SettingsOwner, settings: KeySettings | undefined): Promise<void> {
    if (settings?.routing && owner.kind !== 'optimised') {
      throw new ValidationError('settings.routing', 'settings.routing: only optimised keys are routed by Spendgate');
    }
    const overrides = settings?.modelOverrides ?? [];
    if (overrides.length === 0) return;
    const problem = modelOverrideProblem(overrides, owner.kind, await servability(db, owner));
    if (problem) throw new ValidationError(problem.field, problem.message);
  };
}

export type KeySettingsCheck = ReturnType<typeof createKeySettingsCheck>;
