/**
 * What the router knows about the models an operator account may serve, as data: a
 * quality tier and accuracy score (the operator's judgement from public evaluations;
 * tune here), the context window and output limit, the features a request may need, and
 * the family's cheaper sibling that a spent downgrade budget sends requests to. Each
 * model is priced in the catalog under `provider`; speed is not here — it is measured
 * live.
 */
import { fineTunedBase } from '../pricing/catalog.ts';

/** 1 economy, 2 standard, 3 frontier. A named model fails over to its tier or above. */
export type QualityTier = 1 | 2 | 3;

export interface ModelFeatures {
  tools: boolean;
  vision: boolean;
  /** Answers `response_format` JSON (json_object or json_schema). */
  jsonMode: boolean;
}

export interface ModelProfile {
  model: string;
  /** Catalog provider that prices it. */
  provider: string;
  family: string;
  tier: QualityTier;
  /** 0–100, higher is better; compared between candidates, not absolute. */
  accuracy: number;
  contextWindow: number;
  maxOutputTokens: number;
  features: ModelFeatures;
  /** The next cheaper model of the same family, for downgrade budgets. */
  cheaperSibling?: string;
}

const ALL_FEATURES: ModelFeatures = { tools: true, vision: true, jsonMode: true };
/** Claude answers json_schema only through tools, not OpenAI's json modes. */
const CLAUDE_FEATURES: ModelFeatures = { tools: true, vision: true, jsonMode: false };

export const MODEL_PROFILES: readonly ModelProfile[] = [
  // OpenAI
  { model: 'gpt-5', provider: 'openai', family: 'gpt-5', tier: 3, accuracy: 92, contextWindow: 400_000, maxOutputTokens: 128_000, features: ALL_FEATURES, cheaperSibling: 'gpt-5-mini' },
  { model: 'gpt-5-mini', provider: 'openai', family: 'gpt-5', tier: 2, accuracy: 84, contextWindow: 400_000, maxOutputTokens: 128_000, features: ALL_FEATURES, cheaperSibling: 'gpt-5-nano' },
  { model: 'gpt-5-nano', provider: 'openai', family: 'gpt-5', tier: 1, accuracy: 72, contextWindow: 400_000, maxOutputTokens: 128_000, features: ALL_FEATURES },
  { model: 'gpt-4.1', provider: 'openai', family: 'gpt-4.1', tier: 2, accuracy: 85, contextWindow: 1_047_576, maxOutputTokens: 32_768, features: ALL_FEATURES, cheaperSibling: 'gpt-4.1-mini' },
  { model: 'gpt-4.1-mini', provider: 'openai', family: 'gpt-4.1', tier: 1, accuracy: 76, contextWindow: 1_047_576, maxOutputTokens: 32_768, features: ALL_FEATURES, cheaperSibling: 'gpt-4.1-nano' },
  { model: 'gpt-4.1-nano', provider: 'openai', family: 'gpt-4.1', tier: 1, accuracy: 62, contextWindow: 1_047_576, maxOutputTokens: 32_768, features: ALL_FEATURES },
  { model: 'gpt-4o', provider: 'openai', family: 'gpt-4o', tier: 2, accuracy: 80, contextWindow: 128_000, maxOutputTokens: 16_384, features: ALL_FEATURES, cheaperSibling: 'gpt-4o-mini' },
  { model: 'gpt-4o-mini', provider: 'openai', family: 'gpt-4o', tier: 1, accuracy: 68, contextWindow: 128_000, maxOutputTokens: 16_384, features: ALL_FEATURES },
  { model: 'o4-mini', provider: 'openai', family: 'o-series', tier: 3, accuracy: 86, contextWindow: 200_000, maxOutputTokens: 100_000, features: ALL_FEATURES },
  { model: 'o3-mini', provider: 'openai', family: 'o-series', tier: 2, accuracy: 80, contextWindow: 200_000, maxOutputTokens: 100_000, features: { tools: true, vision: false, jsonMode: true } },
  // Anthropic
  { model: 'claude-opus-4-5', provider: 'anthropic', family: 'claude', tier: 3, accuracy: 93, contextWindow: 200_000, maxOutputTokens: 64_000, features: CLAUDE_FEATURES, cheaperSibling: 'claude-sonnet-4-5' },
  { model: 'claude-sonnet-4-5', provider: 'anthropic', family: 'claude', tier: 3, accuracy: 90, contextWindow: 200_000, maxOutputTokens: 64_000, features: CLAUDE_FEATURES, cheaperSibling: 'claude-haiku-4-5' },
  { model: 'claude-sonnet-4-0', provider: 'anthropic', family: 'claude', tier: 2, accuracy: 86, contextWindow: 200_000, maxOutputTokens: 64_000, features: CLAUDE_FEATURES, cheaperSibling: 'claude-haiku-4-5' },
  { model: 'claude-haiku-4-5', provider: 'anthropic', family: 'claude', tier: 2, accuracy: 80, contextWindow: 200_000, maxOutputTokens: 64_000, features: CLAUDE_FEATURES, cheaperSibling: 'claude-3-5-haiku-latest' },
  { model: 'claude-3-5-haiku-latest', provider: 'anthropic', family: 'claude', tier: 1, accuracy: 70, contextWindow: 200_000, maxOutputTokens: 8_192, features: CLAUDE_FEATURES },
  // Google
  { model: 'gemini-2.5-pro', provider: 'google', family: 'gemini-2.5', tier: 3, accuracy: 90, contextWindow: 1_048_576, maxOutputTokens: 65_536, features: ALL_FEATURES, cheaperSibling: 'gemini-2.5-flash' },
  { model: 'gemini-2.5-flash', provider: 'google', family: 'gemini-2.5', tier: 2, accuracy: 82, contextWindow: 1_048_576, maxOutputTokens: 65_536, features: ALL_FEATURES, cheaperSibling: 'gemini-2.5-flash-lite' },
  { model: 'gemini-2.5-flash-lite', provider: 'google', family: 'gemini-2.5', tier: 1, accuracy: 72, contextWindow: 1_048_576, maxOutputTokens: 65_536, features: ALL_FEATURES },
  { model: 'gemini-2.0-flash', provider: 'google', family: 'gemini-2.0', tier: 1, accuracy: 74, contextWindow: 1_048_576, maxOutputTokens: 8_192, features: ALL_FEATURES, cheaperSibling: 'gemini-2.0-flash-lite' },
  { model: 'gemini-2.0-flash-lite', provider: 'google', family: 'gemini-2.0', tier: 1, accuracy: 66, contextWindow: 1_048_576, maxOutputTokens: 8_192, features: ALL_FEATURES },
];

const byModel = new Map(MODEL_PROFILES.map((profile) => [profile.model, profile]));

/** `-2024-08-06` or `-20250929` at the end of a model id, as providers answer. */
const DATE_SUFFIX = /-(?:20\d{2}-\d{2}-\d{2}|20\d{6})$/;

/**
 * The profile of a model, dated ids included.
 * @example modelProfile('gpt-4o-2024-08-06')?.cheaperSibling // 'gpt-4o-mini'
 */
export function modelProfile(model: string): ModelProfile | undefined {
  const id = model.toLowerCase();
  return byModel.get(id) ?? byModel.get(id.replace(DATE_SUFFIX, ''));
}

/**
 * The most output tokens a model can answer, when known: its profile's limit, a
 * fine-tuned model's (`ft:<base>:…`) that of its base.
 * @example maxOutputTokensOf('ft:gpt-4o-mini-2024-07-18:acme::9xYz') // 16_384
 */
export function maxOutputTokensOf(model: string): number | undefined {
  return modelProfile(fineTunedBase(model).replace(/^ft:/, ''))?.maxOutputTokens;
}
