/**
 * The operator's own provider accounts (OPTIMISED_UPSTREAMS): optimised keys are served
 * through the one whose price catalog lists the model, and so is the AI advisor's wording
 * when a team chooses the operator's upstream. Shared by the data plane (proxy/upstreams.ts)
 * and the control plane, each calling through `operatorAgent`.
 */
import { findPrice, type PriceCatalog } from '@spendgate/core';
import type { Config } from '@spendgate/store';
import { Agent } from 'undici';
import { findProvider } from './registry.ts';
import type { ConnectionOptions, ProviderAdapter } from './types.ts';

/** The keep-alive agent for the operator's accounts (not the global dispatcher, which Node's built-in fetch may have installed from its own undici). */
export const operatorAgent = new Agent();

export interface OperatorAccount {
  adapter: ProviderAdapter;
  baseUrl: string;
  options: ConnectionOptions;
  secret: string;
}

/** The configured accounts; throws for one whose provider is unknown or that has no base URL. */
export function operatorAccounts(optimisedUpstreams: Config['optimisedUpstreams']): OperatorAccount[] {
  return Object.entries(optimisedUpstreams).map(([providerId, account]) => {
    const adapter = findProvider(providerId);
    const baseUrl = (account.baseUrl ?? adapter?.defaultBaseUrl)?.replace(/\/+$/, '');
    if (!adapter || !baseUrl) throw new Error(`OPTIMISED_UPSTREAMS: "${providerId}" needs a known provider and a baseUrl`);
    return { adapter, baseUrl, options: { apiVersion: account.apiVersion }, secret: account.apiKey };
  });
}

/** The first account whose provider's catalog prices `model` at `at`, if any does. */
export function operatorAccountFor<T extends OperatorAccount>(accounts: readonly T[], catalog: PriceCatalog, model: string, at: Date): T | undefined {
  return accounts.find((account) => findPrice(catalog, account.adapter.catalogProvider, model, at));
}
