/**
 * The AI advisor's detectors: pure functions that read a team's usage over a window (one
 * slice per key × connection × provider × model, summed) and find where it could spend
 * less. Each finding carries its evidence, the cost of the window as it was and as it
 * would have been (both priced by core's priceRequest, so the two sides agree), the
 * saving scaled to a 30-day month in GBP micros, a confidence, and the change to make:
 * where a key setting expresses it (a model override, an output cap), that setting,
 * which the advisor applies in one click; otherwise an instruction.
 *
 * A slice's usage is priced summed, once: exact for list prices, which are linear in
 * tokens; an optimised request under the plan's token minimum (billed a flat fee) and
 * Gemini's long-context tier are not told apart, the two sides alike.
 */
import { gpuMemoryText } from '../alerts/gpu-idle.ts';
import type { KeyKind } from '../billing.ts';
import { gpuTimeCostMicros } from '../gpu/idle.ts';
import type { KeySettingChange, ModelOverride } from '../key-settings.ts';
import { microsToDecimalString, roundHalfUpDiv } from '../money.ts';
import type { PlanTerms } from '../plans.ts';
import { findPrice, type PriceCatalog } from '../pricing/catalog.ts';
import { priceRequest } from '../pricing/price-request.ts';
import { MODEL_PROFILES, modelProfile } from '../routing/profiles.ts';
import { plainUsage, type Usage } from '../usage.ts';

/** One key's usage of one model through one connection (or Spendgate's accounts) over the window. */
export interface UsageSlice {
  keyId: string;
  keyName: string;
  keyKind: KeyKind;
  connectionId: string | null;
  provider: string;
  model: string;
  /** The models callers asked for that this model served (a key's override replaces these), or the model itself where not recorded. */
  requestedModels: string[];
  requests: number;
  usage: Usage;
  /** The longest answer, in output tokens (reasoning included). */
  largestOutputTokens: number;
  /** The newest few request ids, shown as evidence. */
  exampleRequestIds: string[];
}

/**
 * A key's requests that repeated a body it had sent before in the window (the same
 * SHA-256 of the bytes sent), summed per key × connection × provider × model: `requests`
 * and `usage` are the repeats' only (each body's first send is not counted).
 */
export interface RepeatSlice extends UsageSlice {
  /** Distinct bodies sent more than once. */
  repeatedBodies: number;
}

/** A key's answered requests that asked for an output limit, per key × connection × provider × model. */
export interface OutputLimitSlice extends UsageSlice {
  /** The smallest and largest output limits asked (max_tokens, max_completion_tokens or max_output_tokens). */
  smallestRequestedOutputTokens: number;
  largestRequestedOutputTokens: number;
}

export interface AdvisorKey {
  id: string;
  name: string;
  kind: KeyKind;
  /** The connection a BYOK or BYOM key is bound to. */
  connectionId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface AdvisorConnection {
  id: string;
  name: string;
  provider: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface AdvisorInput {
  plan: PlanTerms;
  catalog: PriceCatalog;
  /** The window's end: prices in force then, idleness measured to it. */
  at: Date;
  windowDays: number;
  slices: readonly UsageSlice[];
  /** Repeated request bodies (empty when the meter recorded no body hashes). */
  repeats: readonly RepeatSlice[];
  /** Output limits asked against outputs seen. */
  outputLimits: readonly OutputLimitSlice[];
  /** The team's live keys and connections (idleness, which providers it can reach, and which keys a setting can change). */
  keys: readonly AdvisorKey[];
  connections: readonly AdvisorConnection[];
  /** The price-catalog providers of Spendgate's own accounts: the models optimised keys can be sent to. */
  operatorProviders: readonly string[];
  /** The team's GPUs with idle minutes in the GPU_WINDOW_DAYS before `at` (a team with GPU analytics; none otherwise). */
  gpus?: readonly AdvisorGpu[];
}

/** One idle stretch of a GPU: consecutive idle or idle-held minutes, and the process that held the most memory in it. */
export interface GpuIdleStretch {
  start: Date;
  end: Date;
  heldMinutes: number;
  idleMinutes: number;
  peakMemoryMiB: number | null;
  peakUtilizationPct: number | null;
  process: { pid: number; name: string } | null;
}

/** A GPU's idle time over the GPU window, with its price per hour in the team's table. */
export interface AdvisorGpu {
  gpuId: string;
  gpuUuid: string;
  index: number | null;
  host: string | null;
  cluster: string;
  model: string | null;
  /** GBP micros an hour; undefined when the team's table does not price its model (no finding: unpriced, never £0). */
  pricePerHourMicros: bigint | undefined;
  /** Its stretches in the window, newest first. */
  stretches: readonly GpuIdleStretch[];
}

export type FindingKind =
  | 'cheaper-model'
  | 'reasoning-heavy'
  | 'cheaper-provider'
  | 'duplicate-requests'
  | 'oversized-output-limit'
  | 'idle-key'
  | 'idle-connection'
  | 'idle-gpu';
export type Confidence = 'high' | 'medium' | 'low';

/**
 * What to change: a key's revocation or a change merged into its settings (each one
 * click, through the keys service), or a change in the caller's code or setup.
 */
export type AdvisorChange =
  | { action: 'revoke-key'; keyId: string }
  | { action: 'key-setting'; keyId: string; settings: KeySettingChange; description: string }
  | { action: 'manual'; instruction: string };

export interface IdlePeriod {
  start: string;
  end: string;
  heldMinutes: number;
  idleMinutes: number;
  peakMemoryMiB: number | null;
  process: { pid: number; name: string } | null;
  wasted: string;
}

export interface Finding {
  kind: FindingKind;
  /** Stable across runs: the same finding is recognised (and charged) once. */
  fingerprint: string;
  subject: { keyId: string | null; connectionId: string | null; provider: string | null; model: string | null };
  evidence: {
    requests: number;
    exampleRequestIds: string[];
    /** Detector-specific figures the wording may cite (tokens, shares, days idle). */
    facts: Record<string, string | number>;
    /** An idle GPU's stretches: when, how long held or idle, the process holding memory, what each cost (GBP). */
    idlePeriods?: IdlePeriod[];
  };
  /** GBP micros the window's usage counted, and would have counted after the change. */
  currentCostMicros: bigint;
  counterfactualCostMicros: bigint;
  /** (current − counterfactual) scaled to 30 days; for an idle optimised key over the plan's allowance, its monthly fee. */
  monthlySavingMicros: bigint;
  confidence: Confidence;
  change: AdvisorChange;
}

const MONTH_DAYS = 30n;
/** The days of GPU time an idle-GPU finding prices: the week to the window's end ("wasted this week"). */
export const GPU_WINDOW_DAYS = 7;
const MINUTE_MS = 60_000;
/** Keys and connections unused this long (and older than this) are idle. */
export const IDLE_DAYS = 30;
/** Reasoning is "dominating" when it is at least this share of a slice's cost. */
export const REASONING_SHARE_THRESHOLD = 0.5;
/** The counterfactual of a lower reasoning effort: this fraction of the reasoning tokens kept. */
export const REASONING_KEPT_AT_LOW_EFFORT = { numerator: 1, denominator: 2 } as const;
/** A key × model's repeats are worth caching from this many on. */
export const MIN_REPEATS = 10;
/** An output limit is "far above" the outputs seen when the smallest asked is at least this many times the longest answer. */
export const OUTPUT_LIMIT_FACTOR = 4;
/** Outputs are judged on at least this many answered requests. */
export const MIN_OUTPUT_LIMIT_REQUESTS = 20;
/** Suggested caps are multiples of this many tokens. */
const OUTPUT_CAP_STEP = 256;
/** At least this many requests make a model or provider finding `medium` confidence rather than `low`. */
const MEDIUM_CONFIDENCE_REQUESTS = 100;
const DAY_MS = 86_400_000;

/** GBP micros the slice's usage counts on budgets when served by `provider`/`model`; undefined when unpriced. */
function spendOf(input: AdvisorInput, slice: UsageSlice, provider: string, model: string, usage: Usage = slice.usage): bigint | undefined {
  const priced = priceRequest(input.catalog, { kind: slice.keyKind, plan: input.plan, provider, model, usage, at: input.at });
  return priced.cost.status === 'priced' ? priced.budgetSpendMicros : undefined;
}

const monthly = (windowSaving: bigint, windowDays: number) => roundHalfUpDiv(windowSaving * MONTH_DAYS, BigInt(windowDays));
const volumeConfidence = (requests: number): Confidence => (requests >= MEDIUM_CONFIDENCE_REQUESTS ? 'medium' : 'low');

function subjectOf(slice: UsageSlice) {
  return { keyId: slice.keyId, connectionId: slice.connectionId, provider: slice.provider, model: slice.model };
}

/** The slice's key when it is live (in the input's keys): only then can a setting change it. */
const liveKeyOf = (input: AdvisorInput, slice: UsageSlice) => input.keys.find((key) => key.id === slice.keyId);

/**
 * Overrides that send `model` (through `connectionId`, when given) for each model callers
 * asked for; `auto` is left to the router's weights, and a request already for `model` on
 * the key's own connection needs none.
 */
function overridesTo(requestedModels: readonly string[], model: string, connectionId: string | undefined): ModelOverride[] {
  return requestedModels
    .filter((requested) => requested !== 'auto' && !(requested === model && connectionId === undefined))
    .map((requested) => (connectionId === undefined ? { replace: requested, with: model } : { replace: requested, with: model, connectionId }));
}

const replacedModels = (overrides: readonly ModelOverride[]) => overrides.map((override) => override.replace).join(' or ');

/**
 * A model of the same quality tier, at least as accurate, with as large a context window,
 * that the slice's key can reach (its own provider; optimised keys: any Spendgate's
 * accounts serve) and that would have cost less. BYOM keys pay a fixed routing fee, so
 * none apply. The change overrides the models the key's callers asked for with it (on the
 * connection the slice was served through).
 */
export function detectCheaperModel(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  for (const slice of input.slices) {
    const profile = modelProfile(slice.model);
    if (slice.keyKind === 'byom' || profile === undefined) continue;
    const current = spendOf(input, slice, slice.provider, slice.model);
    if (current === undefined) continue;
    let best: { model: string; provider: string; spend: bigint } | undefined;
    for (const candidate of MODEL_PROFILES) {
      if (candidate.model === profile.model || candidate.tier !== profile.tier || candidate.accuracy < profile.accuracy) continue;
      if (candidate.contextWindow < profile.contextWindow) continue;
      const provider = slice.keyKind === 'optimised' ? candidate.provider : slice.provider;
      if (slice.keyKind !== 'optimised' && candidate.provider !== profile.provider) continue;
      if (slice.keyKind === 'optimised' && !input.operatorProviders.includes(candidate.provider)) continue;
      const spend = spendOf(input, slice, provider, candidate.model);
      if (spend !== undefined && spend < current && (best === undefined || spend < best.spend)) best = { model: candidate.model, provider, spend };
    }
    if (best === undefined) continue;
    const key = liveKeyOf(input, slice);
    // BYOK traffic a key's override already sends through another connection stays on it.
    const through = slice.keyKind === 'byok' && slice.connectionId !== null && slice.connectionId !== key?.connectionId ? slice.connectionId : undefined;
    const overrides = key === undefined ? [] : overridesTo(slice.requestedModels, best.model, through);
    findings.push({
      kind: 'cheaper-model',
      fingerprint: `cheaper-model:${slice.keyId}:${slice.provider}:${slice.model}:${best.model}`,
      subject: subjectOf(slice),
      evidence: {
        requests: slice.requests,
        exampleRequestIds: slice.exampleRequestIds,
        facts: { model: slice.model, alternative: best.model, tier: profile.tier, accuracy: profile.accuracy, alternativeAccuracy: modelProfile(best.model)!.accuracy },
      },
      currentCostMicros: current,
      counterfactualCostMicros: best.spend,
      monthlySavingMicros: monthly(current - best.spend, input.windowDays),
      confidence: volumeConfidence(slice.requests),
      change:
        overrides.length === 0
          ? { action: 'manual', instruction: `Request ${best.model} instead of ${slice.model} on key ${slice.keyName}` }
          : {
              action: 'key-setting',
              keyId: slice.keyId,
              settings: { modelOverrides: overrides },
              description: `On key ${slice.keyName}, send ${best.model} when ${replacedModels(overrides)} is asked for`,
            },
    });
  }
  return findings;
}

/**
 * Reasoning tokens at least half a slice's cost: a lower reasoning effort (counterfactual:
 * half the reasoning tokens) would cost less. Low confidence: how far effort cuts reasoning
 * depends on the prompts.
 */
export function detectReasoningHeavy(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  for (const slice of input.slices) {
    if (slice.keyKind === 'byom' || slice.usage.reasoningTokens === 0) continue;
    const current = spendOf(input, slice, slice.provider, slice.model);
    const withoutReasoning = spendOf(input, slice, slice.provider, slice.model, {
      ...slice.usage,
      outputTokens: slice.usage.outputTokens - slice.usage.reasoningTokens,
      reasoningTokens: 0,
    });
    if (current === undefined || withoutReasoning === undefined || current === 0n) continue;
    const reasoningCost = current - withoutReasoning;
    if (reasoningCost * 100n < current * BigInt(REASONING_SHARE_THRESHOLD * 100)) continue;
    const { numerator, denominator } = REASONING_KEPT_AT_LOW_EFFORT;
    const dropped = slice.usage.reasoningTokens - Math.floor((slice.usage.reasoningTokens * numerator) / denominator);
    const counterfactual = spendOf(input, slice, slice.provider, slice.model, {
      ...slice.usage,
      outputTokens: slice.usage.outputTokens - dropped,
      reasoningTokens: slice.usage.reasoningTokens - dropped,
    })!;
    findings.push({
      kind: 'reasoning-heavy',
      fingerprint: `reasoning-heavy:${slice.keyId}:${slice.provider}:${slice.model}`,
      subject: subjectOf(slice),
      evidence: {
        requests: slice.requests,
        exampleRequestIds: slice.exampleRequestIds,
        facts: {
          model: slice.model,
          reasoningTokens: slice.usage.reasoningTokens,
          outputTokens: slice.usage.outputTokens,
          reasoningSharePercent: Number(roundHalfUpDiv(reasoningCost * 100n, current)),
        },
      },
      currentCostMicros: current,
      counterfactualCostMicros: counterfactual,
      monthlySavingMicros: monthly(current - counterfactual, input.windowDays),
      confidence: 'low',
      change: { action: 'manual', instruction: `Set reasoning_effort to "low" on ${slice.model} requests of key ${slice.keyName}` },
    });
  }
  return findings;
}

/**
 * The same model priced lower at another provider the team has a connection to (e.g. a
 * model on Azure OpenAI and OpenAI, or an open model on several hosts). BYOK keys only:
 * they choose the connection; optimised keys are routed by Spendgate. The change
 * overrides the models the key's callers asked for with the same model through that
 * connection.
 */
export function detectCheaperProvider(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  const reachable = new Map<string, AdvisorConnection>();
  for (const connection of input.connections) if (!reachable.has(connection.provider)) reachable.set(connection.provider, connection);
  for (const slice of input.slices) {
    if (slice.keyKind !== 'byok') continue;
    const current = spendOf(input, slice, slice.provider, slice.model);
    if (current === undefined) continue;
    let best: { connection: AdvisorConnection; spend: bigint } | undefined;
    for (const [provider, connection] of reachable) {
      if (provider === slice.provider || findPrice(input.catalog, provider, slice.model, input.at) === undefined) continue;
      const spend = spendOf(input, slice, provider, slice.model);
      if (spend !== undefined && spend < current && (best === undefined || spend < best.spend)) best = { connection, spend };
    }
    if (best === undefined) continue;
    const { connection } = best;
    const overrides = liveKeyOf(input, slice) === undefined ? [] : overridesTo(slice.requestedModels, slice.model, connection.id);
    findings.push({
      kind: 'cheaper-provider',
      fingerprint: `cheaper-provider:${slice.keyId}:${slice.provider}:${slice.model}:${best.connection.provider}`,
      subject: subjectOf(slice),
      evidence: {
        requests: slice.requests,
        exampleRequestIds: slice.exampleRequestIds,
        facts: { model: slice.model, provider: slice.provider, alternativeProvider: best.connection.provider, alternativeConnection: best.connection.name },
      },
      currentCostMicros: current,
      counterfactualCostMicros: best.spend,
      monthlySavingMicros: monthly(current - best.spend, input.windowDays),
      confidence: volumeConfidence(slice.requests),
      change:
        overrides.length === 0
          ? { action: 'manual', instruction: `Serve ${slice.model} for key ${slice.keyName} through the ${connection.provider} connection "${connection.name}"` }
          : {
              action: 'key-setting',
              keyId: slice.keyId,
              settings: { modelOverrides: overrides },
              description: `On key ${slice.keyName}, send ${replacedModels(overrides)} requests through the ${connection.provider} connection "${connection.name}"${
                overrides.every((override) => override.replace === slice.model) ? '' : ` as ${slice.model}`
              }`,
            },
    });
  }
  return findings;
}

/**
 * The same body sent again by a key: a cache in front of the model (or the caller reusing
 * its answer) would have served every repeat for nothing, so the repeats' cost is the
 * saving. Medium confidence: the bodies are byte for byte the same, but whether an answer
 * may be reused (sampling, time-dependent prompts) is the caller's to judge.
 */
export function detectDuplicates(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  for (const repeat of input.repeats) {
    if (repeat.requests < MIN_REPEATS) continue;
    const current = spendOf(input, repeat, repeat.provider, repeat.model);
    if (current === undefined || current === 0n) continue;
    findings.push({
      kind: 'duplicate-requests',
      fingerprint: `duplicate-requests:${repeat.keyId}:${repeat.provider}:${repeat.model}`,
      subject: subjectOf(repeat),
      evidence: {
        requests: repeat.requests,
        exampleRequestIds: repeat.exampleRequestIds,
        facts: { model: repeat.model, keyName: repeat.keyName, repeatedBodies: repeat.repeatedBodies },
      },
      currentCostMicros: current,
      counterfactualCostMicros: 0n,
      monthlySavingMicros: monthly(current, input.windowDays),
      confidence: 'medium',
      change: { action: 'manual', instruction: `Cache the answers to repeated ${repeat.model} requests of key ${repeat.keyName} and serve repeats from the cache` },
    });
  }
  return findings;
}

/**
 * An output limit far above every answer seen: providers bill the output produced, so
 * spend does not change, but admission reserves each request's worst case (the prompt
 * plus the limit asked) on the key's budgets, so near a hard budget's cap requests are
 * capped or refused (402) while most of the reservation goes unused. The finding prices
 * the output reserved per request at the largest limit asked and at a cap of twice the
 * longest answer (rounded up to 256 tokens). The key's output cap (a setting, one click)
 * is twice the longest answer the key got on any model, so it cuts none seen; when that
 * cap would lower nothing this model asks, or the key is not live, the change is the
 * caller's: that model's limit.
 */
export function detectOversizedOutputLimits(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  const capOver = (longest: number) => Math.max(OUTPUT_CAP_STEP, Math.ceil((2 * longest) / OUTPUT_CAP_STEP) * OUTPUT_CAP_STEP);
  for (const limits of input.outputLimits) {
    if (limits.requests < MIN_OUTPUT_LIMIT_REQUESTS || limits.smallestRequestedOutputTokens < OUTPUT_LIMIT_FACTOR * Math.max(limits.largestOutputTokens, 1)) continue;
    const keyCap = capOver(
      Math.max(limits.largestOutputTokens, ...input.slices.filter((slice) => slice.keyId === limits.keyId).map((slice) => slice.largestOutputTokens)),
    );
    const bySetting = liveKeyOf(input, limits) !== undefined && keyCap < limits.largestRequestedOutputTokens;
    const suggestedCap = bySetting ? keyCap : capOver(limits.largestOutputTokens);
    const spend = spendOf(input, limits, limits.provider, limits.model);
    const reserved = spendOf(input, limits, limits.provider, limits.model, plainUsage(0, limits.largestRequestedOutputTokens));
    const reservedAtCap = spendOf(input, limits, limits.provider, limits.model, plainUsage(0, suggestedCap));
    if (spend === undefined || reserved === undefined || reservedAtCap === undefined) continue;
    findings.push({
      kind: 'oversized-output-limit',
      fingerprint: `oversized-output-limit:${limits.keyId}:${limits.provider}:${limits.model}`,
      subject: subjectOf(limits),
      evidence: {
        requests: limits.requests,
        exampleRequestIds: limits.exampleRequestIds,
        facts: {
          model: limits.model,
          keyName: limits.keyName,
          largestRequestedOutputTokens: limits.largestRequestedOutputTokens,
          smallestRequestedOutputTokens: limits.smallestRequestedOutputTokens,
          largestOutputTokens: limits.largestOutputTokens,
          suggestedCap,
          reservedOutputMicros: Number(reserved),
          reservedOutputAtCapMicros: Number(reservedAtCap),
        },
      },
      currentCostMicros: spend,
      counterfactualCostMicros: spend,
      monthlySavingMicros: 0n,
      confidence: 'high',
      change: bySetting
        ? {
            action: 'key-setting',
            keyId: limits.keyId,
            settings: { maxOutputTokens: suggestedCap },
            description: `Cap every answer of key ${limits.keyName} at ${suggestedCap} output tokens, at least twice the longest it got`,
          }
        : { action: 'manual', instruction: `Set max_tokens to ${suggestedCap} on ${limits.model} requests of key ${limits.keyName}` },
    });
  }
  return findings;
}

const idleDays = (thing: { createdAt: Date; lastUsedAt: Date | null }, at: Date) =>
  Math.floor((at.getTime() - (thing.lastUsedAt ?? thing.createdAt).getTime()) / DAY_MS);

/**
 * Keys and connections with no request for IDLE_DAYS: a live key nobody uses is a secret
 * that can leak. Revoking an idle optimised key over the plan's allowance saves its
 * monthly fee; others save nothing but the risk. High confidence: the absence is measured.
 */
export function detectIdle(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  const optimisedKeys = input.keys.filter((key) => key.kind === 'optimised').length;
  const included = input.plan.optimisedKeysIncluded;
  let overAllowance = included === null ? 0 : Math.max(0, optimisedKeys - included);
  for (const key of input.keys) {
    const days = idleDays(key, input.at);
    if (days < IDLE_DAYS) continue;
    const paid = key.kind === 'optimised' && overAllowance > 0 && input.plan.extraOptimisedKeyMonthlyMicros !== null;
    if (paid) overAllowance -= 1;
    const fee = paid ? input.plan.extraOptimisedKeyMonthlyMicros! : 0n;
    findings.push({
      kind: 'idle-key',
      fingerprint: `idle-key:${key.id}`,
      subject: { keyId: key.id, connectionId: null, provider: null, model: null },
      evidence: { requests: 0, exampleRequestIds: [], facts: { keyName: key.name, idleDays: days, lastUsedAt: key.lastUsedAt?.toISOString() ?? 'never' } },
      currentCostMicros: fee,
      counterfactualCostMicros: 0n,
      monthlySavingMicros: fee,
      confidence: 'high',
      change: { action: 'revoke-key', keyId: key.id },
    });
  }
  for (const connection of input.connections) {
    const days = idleDays(connection, input.at);
    if (days < IDLE_DAYS) continue;
    findings.push({
      kind: 'idle-connection',
      fingerprint: `idle-connection:${connection.id}`,
      subject: { keyId: null, connectionId: connection.id, provider: connection.provider, model: null },
      evidence: { requests: 0, exampleRequestIds: [], facts: { connectionName: connection.name, idleDays: days, lastUsedAt: connection.lastUsedAt?.toISOString() ?? 'never' } },
      currentCostMicros: 0n,
      counterfactualCostMicros: 0n,
      monthlySavingMicros: 0n,
      confidence: 'high',
      change: { action: 'manual', instruction: `Delete the ${connection.provider} connection "${connection.name}" (and its stored provider key) if nothing needs it` },
    });
  }
  return findings;
}

/**
 * GPUs that sat idle, or held memory while idle, in the week to the window's end (the team's
 * idle rules classified each minute): the week's idle time priced at the team's £ an hour
 * for the model, the same sum the GPU screen's waste shows, scaled to 30 days. The title
 * names the longest stretch that held memory, as the idle-GPU alert does ("GPU 3 on host h1
 * held 38.4 GiB at 0 % for 45 minutes"); the change is to stop the process holding it, or,
 * when nothing was held, to scale the GPU down. High confidence: the minutes are measured.
 */
export function detectIdleGpus(input: AdvisorInput): Finding[] {
  const findings: Finding[] = [];
  for (const gpu of input.gpus ?? []) {
    const price = gpu.pricePerHourMicros;
    const heldMinutes = gpu.stretches.reduce((sum, stretch) => sum + stretch.heldMinutes, 0);
    const idleMinutes = gpu.stretches.reduce((sum, stretch) => sum + stretch.idleMinutes, 0);
    if (price === undefined || heldMinutes + idleMinutes === 0) continue;
    const wasted = gpuTimeCostMicros(heldMinutes + idleMinutes, MINUTE_MS, price);
    const longestHeld = gpu.stretches.reduce<GpuIdleStretch | undefined>((longest, stretch) => (stretch.heldMinutes > (longest?.heldMinutes ?? 0) ? stretch : longest), undefined);
    const name = `GPU ${gpu.index ?? gpu.gpuUuid} on host ${gpu.host ?? 'unknown'}`;
    const process = longestHeld?.process ?? null;
    const facts: Record<string, string | number> = {
      gpu: name,
      model: gpu.model ?? 'unknown model',
      cluster: gpu.cluster,
      heldMinutes,
      idleMinutes,
      pricePerHour: microsToDecimalString(price),
      wasted: microsToDecimalString(wasted),
      windowDays: GPU_WINDOW_DAYS,
    };
    if (longestHeld !== undefined) {
      facts.longestHeldMinutes = longestHeld.heldMinutes;
      facts.heldMemory = gpuMemoryText(longestHeld.peakMemoryMiB ?? 0);
      facts.heldUtilizationPct = Math.round(longestHeld.peakUtilizationPct ?? 0);
    }
    if (process !== null) {
      facts.processName = process.name;
      facts.pid = process.pid;
    }
    findings.push({
      kind: 'idle-gpu',
      fingerprint: `idle-gpu:${gpu.gpuId}`,
      subject: { keyId: null, connectionId: null, provider: null, model: gpu.model },
      evidence: {
        requests: 0,
        exampleRequestIds: [],
        facts,
        idlePeriods: gpu.stretches.map((stretch) => ({
          start: stretch.start.toISOString(),
          end: stretch.end.toISOString(),
          heldMinutes: stretch.heldMinutes,
          idleMinutes: stretch.idleMinutes,
          peakMemoryMiB: stretch.peakMemoryMiB,
          process: stretch.heldMinutes > 0 ? stretch.process : null,
          wasted: microsToDecimalString(gpuTimeCostMicros(stretch.heldMinutes + stretch.idleMinutes, MINUTE_MS, price)),
        })),
      },
      currentCostMicros: wasted,
      counterfactualCostMicros: 0n,
      monthlySavingMicros: monthly(wasted, GPU_WINDOW_DAYS),
      confidence: 'high',
      change: {
        action: 'manual',
        instruction:
          longestHeld === undefined
            ? `Scale down ${name} (${gpu.model ?? 'unknown model'}, cluster ${gpu.cluster}) while it has no work: it sat idle with nothing allocated`
            : process === null
              ? `Stop the process holding memory on ${name} without using it, or scale the GPU down while it has no work`
              : `Stop ${process.name} (pid ${process.pid}) on host ${gpu.host ?? 'unknown'}, or have it release ${name}'s memory when it has no work; scale the GPU down while it is idle`,
      },
    });
  }
  return findings;
}

/** Every detector's findings, largest monthly saving first. */
export function detectFindings(input: AdvisorInput): Finding[] {
  if (!Number.isInteger(input.windowDays) || input.windowDays < 1) throw new RangeError('windowDays must be a whole number of days, at least 1');
  return [
    ...detectCheaperModel(input),
    ...detectCheaperProvider(input),
    ...detectReasoningHeavy(input),
    ...detectDuplicates(input),
    ...detectOversizedOutputLimits(input),
    ...detectIdle(input),
    ...detectIdleGpus(input),
  ].sort((a, b) =>
    a.monthlySavingMicros === b.monthlySavingMicros ? a.fingerprint.localeCompare(b.fingerprint) : a.monthlySavingMicros > b.monthlySavingMicros ? -1 : 1,
  );
}
