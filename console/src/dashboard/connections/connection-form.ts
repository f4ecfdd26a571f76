/**
 * The connection form's values, checks and payloads. What a provider needs comes from
 * the API (GET /provider): whether its API key and base URL are required, and the
 * options it reads (e.g. Azure's API version). The checks mirror the API's own (a name
 * of 1 to 200 characters, an http(s) base URL without credentials) so a mistake is
 * named beside its field before anything is sent; the API still checks everything.
 */
import type { ConnectionChanges, Connection, NewConnectionInput, Provider } from '../../api/connections/types.ts';

export interface ConnectionValues {
  teamId: string;
  provider: string;
  name: string;
  apiKey: string;
  baseUrl: string;
  options: Record<string, string>;
}

export type ConnectionField = 'teamId' | 'provider' | 'name' | 'apiKey' | 'baseUrl' | `options.${string}`;
export type ConnectionErrors = Partial<Record<ConnectionField, string>>;

/** create: every required field must be filled; edit: an empty API key keeps the stored one. */
export type FormMode = 'create' | 'edit';

export const emptyValues = (teamId: string, provider: string): ConnectionValues => ({ teamId, provider, name: '', apiKey: '', baseUrl: '', options: {} });

export function valuesOf(connection: Connection): ConnectionValues {
  const options = Object.fromEntries(Object.entries(connection.options).map(([name, value]) => [name, typeof value === 'string' ? value : String(value)]));
  return { teamId: connection.teamId, provider: connection.provider, name: connection.name, apiKey: '', baseUrl: connection.baseUrl, options };
}

export const apiKeyRequired = (provider: Provider | undefined) => provider?.authFields.some((field) => field.name === 'apiKey' && field.required) ?? true;

/** A base URL the API would refuse for its form: not http(s), or with a user name or password. */
function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a full URL, such as https://api.example.com/v1';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The base URL must start with https:// or http://';
  if (url.username || url.password) return 'The base URL must not contain a user name or password';
  if (value.length > 2048) return 'The base URL must be at most 2048 characters';
  return undefined;
}

export function validateConnection(values: ConnectionValues, provider: Provider | undefined, mode: FormMode): ConnectionErrors {
  const errors: ConnectionErrors = {};
  if (!values.teamId) errors.teamId = 'Choose the team this connection belongs to';
  if (!provider) errors.provider = 'Choose a provider';
  const name = values.name.trim();
  if (!name) errors.name = 'Name the connection';
  else if (name.length > 200) errors.name = 'The name must be at most 200 characters';
  if (mode === 'create' && apiKeyRequired(provider) && !values.apiKey.trim()) errors.apiKey = 'Enter the API key';
  else if (values.apiKey.length > 4096) errors.apiKey = 'The API key must be at most 4096 characters';
  const baseUrl = values.baseUrl.trim();
  if (baseUrl) {
    const problem = baseUrlProblem(baseUrl);
    if (problem) errors.baseUrl = problem;
  } else if (provider?.baseUrl.required) {
    errors.baseUrl = `Enter the base URL: ${provider.name} has no default`;
  }
  for (const option of provider?.optionFields ?? []) {
    if ((values.options[option.name]?.trim().length ?? 0) > 500) errors[`options.${option.name}`] = `The ${option.label} must be at most 500 characters`;
  }
  return errors;
}

/** The provider's options the form filled in (empty ones left out: the provider's default applies). */
function filledOptions(values: ConnectionValues, provider: Provider | undefined): Record<string, string> {
  const entries = (provider?.optionFields ?? []).map((option) => [option.name, values.options[option.name]?.trim() ?? ''] as const);
  return Object.fromEntries(entries.filter(([, value]) => value));
}

export function toNewConnection(values: ConnectionValues, provider: Provider | undefined): NewConnectionInput {
  const baseUrl = values.baseUrl.trim();
  const options = filledOptions(values, provider);
  return {
    teamId: values.teamId,
    provider: values.provider,
    name: values.name.trim(),
    apiKey: values.apiKey.trim(),
    ...(baseUrl ? { baseUrl } : {}),
    ...(Object.keys(options).length > 0 ? { options } : {}),
  };
}

/** Only what differs from the stored connection; the API key only when a new one was typed. */
export function toChanges(values: ConnectionValues, stored: Connection, provider: Provider | undefined): ConnectionChanges {
  const changes: ConnectionChanges = {};
  const name = values.name.trim();
  if (name !== stored.name) changes.name = name;
  if (values.apiKey.trim()) changes.apiKey = values.apiKey.trim();
  const baseUrl = values.baseUrl.trim();
  if (baseUrl && baseUrl !== stored.baseUrl) changes.baseUrl = baseUrl;
  const options = filledOptions(values, provider);
  if (JSON.stringify(options) !== JSON.stringify(valuesOf(stored).options)) changes.options = options;
  return changes;
}
