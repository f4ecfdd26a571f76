/**
 * What a team can set on one issued key: per-minute rate limits, the upstream timeout,
 * (optimised keys) how the router weighs cost, speed and accuracy plus models to fall
 * back to in order, models sent in place of the ones callers ask for, and a cap on the
 * output tokens of every request. Every field is optional; an absent one means the
 * default (no rate limit, the gateway's UPSTREAM_TIMEOUT_MS, the plan's routing weights,
 * the model asked for, the caller's output limit).
 */
import type { KeyKind } from './billing.ts';

export interface RoutingWeights {
  cost: number;
  speed: number;
  accuracy: number;
}

/** A model sent in place of the one a caller asks for: priced, metered and recorded as the model served. */
export interface ModelOverride {
  /** The model callers ask for. */
  replace: string;
  /** The model sent instead. */
  with: string;
  /** BYOK keys: another of the team's connections that serves `with` (absent: the key's own). */
  connectionId?: string;
}

export interface KeySettings {
  rateLimit?: { requestsPerMinute?: number; tokensPerMinute?: number };
  timeoutMs?: number;
  routing?: { weights?: RoutingWeights; fallbacks?: string[] };
  modelOverrides?: ModelOverride[];
  /** Output tokens per answer at most: a caller's larger limit is lowered to it, a request without one gets it. */
  maxOutputTokens?: number;
}

/** Bounds the API enforces on key settings. */
export const KEY_SETTING_LIMITS = {
  maxPerMinute: 100_000_000,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 600_000,
  maxFallbacks: 5,
  maxModelOverrides: 20,
  /** The data plane's bound on any output limit. */
  maxOutputTokens: 10_000_000,
} as const;

/** A key-settings problem: the field it is about (as the API names it) and what is wrong. */
export interface KeySettingProblem {
  field: string;
  message: string;
}

/**
 * The first problem with a key's model overrides, or undefined. Each model is replaced at
 * most once; an override sends another model or goes through another connection; only
 * BYOK keys name a connection (optimised keys are routed by Spendgate, BYOM keys use
 * their own endpoint); and `whyNotServed` (the caller's knowledge of the team's
 * connections and the price catalog) says why a connection cannot serve a model.
 * @example
 *   modelOverrideProblem([{ replace: 'gpt-4o', with: 'gpt-4o' }], 'byok', () => undefined)
 *   // { field: 'settings.modelOverrides.0.with', message: '… must differ from replace …' }
 */
export function modelOverrideProblem(
  overrides: readonly ModelOverride[],
  kind: KeyKind,
  whyNotServed: (model: string, connectionId: string | undefined) => string | undefined,
): KeySettingProblem | undefined {
  for (const [index, override] of overrides.entries()) {
    const field = `settings.modelOverrides.${index}`;
    const earlier = overrides.findIndex((other) => other.replace === override.replace);
    if (earlier < index) {
      return { field: `${field}.replace`, message: `${field}.replace: "${override.replace}" is already replaced by settings.modelOverrides.${earlier}` };
    }
    if (override.connectionId !== undefined && kind !== 'byok') {
      const why = kind === 'optimised' ? 'optimised keys are routed by Spendgate' : 'BYOM keys use their own model endpoint';
      return { field: `${field}.connectionId`, message: `${field}.connectionId: only BYOK keys send a model through another connection; ${why}` };
    }
    if (override.with === override.replace && override.connectionId === undefined) {
      return { field: `${field}.with`, message: `${field}.with must differ from replace, or name the connection that serves it` };
    }
    const problem = whyNotServed(override.with, override.connectionId);
    if (problem !== undefined) return { field: override.connectionId === undefined ? `${field}.with` : `${field}.connectionId`, message: `${field}: ${problem}` };
  }
  return undefined;
}

/** A change the advisor makes to a key's settings in one click. */
export type KeySettingChange = Pick<KeySettings, 'modelOverrides' | 'maxOutputTokens'>;

/**
 * `settings` with `change` merged in: each override replaces the key's override of the
 * same model (or is added after the others); an output cap lowers the key's (never
 * raises it). Everything else is kept.
 * @example
 *   withKeySettingChange({ modelOverrides: [{ replace: 'a', with: 'b' }], maxOutputTokens: 512 }, { modelOverrides: [{ replace: 'a', with: 'c' }], maxOutputTokens: 1024 })
 *   // { modelOverrides: [{ replace: 'a', with: 'c' }], maxOutputTokens: 512 }
 */
export function withKeySettingChange(settings: KeySettings, change: KeySettingChange): KeySettings {
  const merged: KeySettings = { ...settings };
  if (change.modelOverrides !== undefined) {
    const overrides = [...(settings.modelOverrides ?? [])];
    for (const override of change.modelOverrides) {
      const existing = overrides.findIndex((other) => other.replace === override.replace);
      if (existing === -1) overrides.push(override);
      else overrides[existing] = override;
    }
    merged.modelOverrides = overrides;
  }
  if (change.maxOutputTokens !== undefined) merged.maxOutputTokens = Math.min(change.maxOutputTokens, settings.maxOutputTokens ?? change.maxOutputTokens);
  return merged;
}
