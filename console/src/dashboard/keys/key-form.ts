/**
 * The key forms' rules, apart from their screens: the fields as typed (strings) become a
 * new key or settings the API takes, or a message per field. The bounds are the API's
 * (core's KEY_SETTING_LIMITS, the model id rule); an empty field means "not set", a
 * blank model override row nothing. Whether a connection serves a model the API checks.
 *
 * @example
 *   readKeySettings({ ...EMPTY_SETTINGS_FIELDS, requestsPerMinute: '60' }, 'byok')
 *   // { settings: { rateLimit: { requestsPerMinute: 60 } }, errors: {} }
 */
import { KEY_SETTING_LIMITS } from '@spendgate/core';
import type { KeyKind, KeySettings, ModelOverride, NewKeyInput } from '../../api/keys/types.ts';

/** One model override as typed: the model asked for, the model sent instead, and (BYOK) the connection it goes through ('' for the key's own). */
export interface ModelOverrideFields {
  replace: string;
  with: string;
  connectionId: string;
}

export interface KeySettingsFields {
  requestsPerMinute: string;
  tokensPerMinute: string;
  timeoutMs: string;
  weightCost: string;
  weightSpeed: string;
  weightAccuracy: string;
  /** Model ids separated by commas (or line breaks), tried in order. */
  fallbacks: string;
  maxOutputTokens: string;
  modelOverrides: ModelOverrideFields[];
}

/** The fields typed as one line of text. */
export type TextSettingsField = Exclude<keyof KeySettingsFields, 'modelOverrides'>;
/** What a message can be about: a text field, or one part of one model override (`modelOverrides.0.with`). */
export type SettingsField = TextSettingsField | `modelOverrides.${number}.${keyof ModelOverrideFields}`;

export interface NewKeyFields extends KeySettingsFields {
  name: string;
  kind: KeyKind;
  connectionId: string;
}

export type FieldErrors<Field extends string> = Partial<Record<Field, string>>;

export const EMPTY_MODEL_OVERRIDE: ModelOverrideFields = { replace: '', with: '', connectionId: '' };

export const EMPTY_SETTINGS_FIELDS: KeySettingsFields = {
  requestsPerMinute: '',
  tokensPerMinute: '',
  timeoutMs: '',
  weightCost: '',
  weightSpeed: '',
  weightAccuracy: '',
  fallbacks: '',
  maxOutputTokens: '',
  modelOverrides: [],
};

export const KIND_LABELS: Record<KeyKind, string> = { byok: 'BYOK', optimised: 'Optimised', byom: 'BYOM' };

const NAME_MAX = 200;
const WEIGHT_MAX = 1000;
const MODEL_ID_MAX = 256;
const MODEL_ID = /^[\x21-\x7e]+$/;
const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** The fields that show a key's current settings. */
export function settingsFieldsFrom(settings: KeySettings): KeySettingsFields {
  const text = (value: number | undefined) => (value === undefined ? '' : String(value));
  return {
    requestsPerMinute: text(settings.rateLimit?.requestsPerMinute),
    tokensPerMinute: text(settings.rateLimit?.tokensPerMinute),
    timeoutMs: text(settings.timeoutMs),
    weightCost: text(settings.routing?.weights?.cost),
    weightSpeed: text(settings.routing?.weights?.speed),
    weightAccuracy: text(settings.routing?.weights?.accuracy),
    fallbacks: (settings.routing?.fallbacks ?? []).join(', '),
    maxOutputTokens: text(settings.maxOutputTokens),
    modelOverrides: (settings.modelOverrides ?? []).map((override) => ({ replace: override.replace, with: override.with, connectionId: override.connectionId ?? '' })),
  };
}

/** The team's active connections other than the key's own: where a BYOK key's model override may send a model. */
export function otherConnections<C extends { id: string; teamId: string; status: string }>(connections: readonly C[], teamId: string, keyConnectionId: string | null): C[] {
  return connections.filter((connection) => connection.teamId === teamId && connection.status === 'active' && connection.id !== keyConnectionId);
}

/** A whole number in [min, max], or a message saying what it must be. */
function wholeNumber(value: string, min: number, max: number): number | string {
  if (!WHOLE.test(value)) return 'must be a whole number';
  const number = Number(value);
  if (number < min) return `must be at least ${min.toLocaleString('en-GB')}`;
  if (number > max) return `must be at most ${max.toLocaleString('en-GB')}`;
  return number;
}

/** Whether `model` is a model id as the API takes one: printable characters, no spaces, at most 256. */
const isModelId = (model: string) => model.length <= MODEL_ID_MAX && MODEL_ID.test(model);

/**
 * The model overrides the rows describe (blank rows left out), or a message per part:
 * both models given as model ids, each model replaced once, and another model sent or
 * another connection named (BYOK keys only: other kinds send through their own). The
 * form offers at most KEY_SETTING_LIMITS.maxModelOverrides rows.
 */
function readModelOverrides(rows: readonly ModelOverrideFields[], kind: KeyKind, errors: FieldErrors<SettingsField>): ModelOverride[] {
  const overrides: ModelOverride[] = [];
  const replaced = new Set<string>();
  rows.forEach((row, index) => {
    const replace = row.replace.trim();
    const sent = row.with.trim();
    const connectionId = kind === 'byok' ? row.connectionId : '';
    if (!replace && !sent && !connectionId) return;
    const field = (part: keyof ModelOverrideFields) => `modelOverrides.${index}.${part}` as const;
    if (!replace) errors[field('replace')] = 'Name the model asked for';
    else if (!isModelId(replace)) errors[field('replace')] = `"${replace.slice(0, 40)}" is not a model id (printable characters, no spaces, at most ${MODEL_ID_MAX})`;
    else if (replaced.has(replace)) errors[field('replace')] = `${replace} is already replaced above`;
    if (!sent) errors[field('with')] = 'Name the model to send instead';
    else if (!isModelId(sent)) errors[field('with')] = `"${sent.slice(0, 40)}" is not a model id (printable characters, no spaces, at most ${MODEL_ID_MAX})`;
    else if (sent === replace && !connectionId) errors[field('with')] = 'Send another model, or choose the connection that serves it';
    replaced.add(replace);
    overrides.push(connectionId ? { replace, with: sent, connectionId } : { replace, with: sent });
  });
  return overrides;
}

/**
 * The settings the fields describe, for a key of `kind` (routing steers optimised keys
 * only, so other kinds ignore those fields), or the problems field by field.
 */
export function readKeySettings(fields: KeySettingsFields, kind: KeyKind): { settings: KeySettings; errors: FieldErrors<SettingsField> } {
  const errors: FieldErrors<SettingsField> = {};
  const settings: KeySettings = {};

  const perMinute = (field: 'requestsPerMinute' | 'tokensPerMinute', label: string) => {
    const value = fields[field].trim();
    if (!value) return undefined;
    const read = wholeNumber(value, 1, KEY_SETTING_LIMITS.maxPerMinute);
    if (typeof read === 'string') errors[field] = `${label} ${read}`;
    return typeof read === 'number' ? read : undefined;
  };
  const requestsPerMinute = perMinute('requestsPerMinute', 'Requests per minute');
  const tokensPerMinute = perMinute('tokensPerMinute', 'Tokens per minute');
  if (requestsPerMinute !== undefined || tokensPerMinute !== undefined) {
    settings.rateLimit = {
      ...(requestsPerMinute !== undefined && { requestsPerMinute }),
      ...(tokensPerMinute !== undefined && { tokensPerMinute }),
    };
  }

  const timeout = fields.timeoutMs.trim();
  if (timeout) {
    const read = wholeNumber(timeout, KEY_SETTING_LIMITS.minTimeoutMs, KEY_SETTING_LIMITS.maxTimeoutMs);
    if (typeof read === 'string') errors.timeoutMs = `Timeout ${read}`;
    else settings.timeoutMs = read;
  }

  const maxOutput = fields.maxOutputTokens.trim();
  if (maxOutput) {
    const read = wholeNumber(maxOutput, 1, KEY_SETTING_LIMITS.maxOutputTokens);
    if (typeof read === 'string') errors.maxOutputTokens = `Max output tokens ${read}`;
    else settings.maxOutputTokens = read;
  }

  const overrides = readModelOverrides(fields.modelOverrides, kind, errors);
  if (overrides.length > 0) settings.modelOverrides = overrides;

  if (kind !== 'optimised') return { settings, errors };

  const routing: NonNullable<KeySettings['routing']> = {};
  const weightFields = [
    ['weightCost', 'Cost weight'],
    ['weightSpeed', 'Speed weight'],
    ['weightAccuracy', 'Accuracy weight'],
  ] as const;
  if (weightFields.some(([field]) => fields[field].trim())) {
    const weights: number[] = [];
    for (const [field, label] of weightFields) {
      const value = fields[field].trim();
      if (!value) errors[field] = `${label} is required when any weight is set`;
      else if (!DECIMAL.test(value)) errors[field] = `${label} must be a number of at least 0`;
      else if (Number(value) > WEIGHT_MAX) errors[field] = `${label} must be at most ${WEIGHT_MAX}`;
      else weights.push(Number(value));
    }
    if (weights.length === 3) {
      const [cost, speed, accuracy] = weights as [number, number, number];
      if (cost + speed + accuracy === 0) errors.weightCost = 'The weights must not all be zero';
      else routing.weights = { cost, speed, accuracy };
    }
  }

  const fallbacks = fields.fallbacks
    .split(/[\n,]/)
    .map((model) => model.trim())
    .filter(Boolean);
  if (fallbacks.length > KEY_SETTING_LIMITS.maxFallbacks) {
    errors.fallbacks = `Name at most ${KEY_SETTING_LIMITS.maxFallbacks} fallback models`;
  } else {
    const wrong = fallbacks.find((model) => model.length > MODEL_ID_MAX || !MODEL_ID.test(model));
    if (wrong) errors.fallbacks = `"${wrong.slice(0, 40)}" is not a model id (printable characters, no spaces, at most ${MODEL_ID_MAX})`;
    else if (fallbacks.length > 0) routing.fallbacks = fallbacks;
  }
  if (routing.weights || routing.fallbacks) settings.routing = routing;
  return { settings, errors };
}

/** A key's name, trimmed, or what is wrong with it (the API's rule for names). */
export function readKeyName(text: string): { name: string; error?: string } {
  const name = text.trim();
  if (!name) return { name, error: 'Name is required' };
  if (name.length > NAME_MAX) return { name, error: `Name must be at most ${NAME_MAX} characters` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the API refuses.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return { name, error: 'Name must not contain control characters' };
  return { name };
}

/** What a message on the issue form can be about. */
export type NewKeyField = SettingsField | 'name' | 'kind' | 'connectionId';

/** The key the issue form describes, or the problems field by field. */
export function readNewKey(fields: NewKeyFields): { input?: NewKeyInput; errors: FieldErrors<NewKeyField> } {
  const { settings, errors } = readKeySettings(fields, fields.kind);
  const allErrors: FieldErrors<NewKeyField> = { ...errors };
  const { name, error: nameError } = readKeyName(fields.name);
  if (nameError) allErrors.name = nameError;
  const needsConnection = fields.kind !== 'optimised';
  if (needsConnection && !fields.connectionId) {
    allErrors.connectionId = fields.kind === 'byom' ? 'Choose the connection to your own model endpoint' : 'Choose the connection the key uses';
  }
  if (Object.keys(allErrors).length > 0) return { errors: allErrors };
  return {
    input: {
      name,
      kind: fields.kind,
      ...(needsConnection && { connectionId: fields.connectionId }),
      ...(Object.keys(settings).length > 0 && { settings }),
    },
    errors: {},
  };
}
