/**
 * The routing policy for optimised keys: which of the models that could serve a request
 * to try, in order. A model is eligible when its profile satisfies what the request
 * needs (context window, output limit, tools, images, JSON mode). Eligible models are
 * ranked by a weighted score of cost, speed and accuracy, each scored 0–1 between the
 * candidates (best 1, worst 0; cost and latency on a log scale, so "twice as cheap"
 * counts the same at any price). Weights are normalised to sum to 1. Models whose
 * circuit is open go last: tried only when everything else failed.
 */
import type { RoutingWeights } from '../key-settings.ts';
import type { ModelProfile } from './profiles.ts';

/** What a request asks of the model that serves it. */
export interface RequestNeeds {
  /** Estimated prompt tokens. */
  promptTokens: number;
  /** The output limit the caller set, if any. */
  maxOutputTokens: number | undefined;
  tools: boolean;
  images: boolean;
  jsonMode: boolean;
}

export interface RouteCandidate {
  profile: ModelProfile;
  /** What the request would cost on it (micro-USD), from the price catalog. */
  costMicros: bigint;
  /** Live average latency, undefined until measured. */
  latencyMs: number | undefined;
  /** False when its circuit is open. */
  healthy: boolean;
}

/** Why a model cannot serve a request, or undefined when it can. */
export function unmetNeed(profile: ModelProfile, needs: RequestNeeds): string | undefined {
  if (needs.promptTokens + (needs.maxOutputTokens ?? 0) > profile.contextWindow) return 'context window too small';
  if (needs.maxOutputTokens !== undefined && needs.maxOutputTokens > profile.maxOutputTokens) return 'output limit too small';
  if (needs.tools && !profile.features.tools) return 'no tools';
  if (needs.images && !profile.features.vision) return 'no vision';
  if (needs.jsonMode && !profile.features.jsonMode) return 'no JSON mode';
  return undefined;
}

/** Weights scaled to sum to 1 (the API refuses all-zero weights). */
export function normaliseWeights(weights: RoutingWeights): RoutingWeights {
  const sum = weights.cost + weights.speed + weights.accuracy;
  return { cost: weights.cost / sum, speed: weights.speed / sum, accuracy: weights.accuracy / sum };
}

/** `cost 0.6 speed 0.2 accuracy 0.2` for route reasons. */
export function describeWeights(weights: RoutingWeights): string {
  const { cost, speed, accuracy } = normaliseWeights(weights);
  const show = (value: number) => String(Math.round(value * 100) / 100);
  return `cost ${show(cost)} speed ${show(speed)} accuracy ${show(accuracy)}`;
}

/** Scores 0–1 with the best (per `better`) at 1; all 1 when they are equal. */
function spreadScores(values: readonly number[], better: 'higher' | 'lower'): number[] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (max === min) return values.map(() => 1);
  return values.map((value) => (better === 'higher' ? (value - min) / (max - min) : (max - value) / (max - min)));
}

/** Latency scores; models not measured yet score in the middle. */
function speedScores(latencies: readonly (number | undefined)[]): number[] {
  const measured = latencies.filter((latency): latency is number => latency !== undefined);
  if (measured.length === 0) return latencies.map(() => 1);
  const scores = spreadScores(measured.map((latency) => Math.log(Math.max(latency, 1))), 'lower');
  let next = 0;
  return latencies.map((latency) => (latency === undefined ? 0.5 : scores[next++]!));
}

/**
 * The candidates that can serve the request, best first by the weighted score (ties:
 * more accurate, then cheaper, then by name), open circuits last.
 * @example rankCandidates(candidates, needs, { cost: 1, speed: 0, accuracy: 0 })[0].profile.model
 * // the cheapest model that has the context window, tools, vision and JSON mode asked for
 */
export function rankCandidates<Candidate extends RouteCandidate>(
  candidates: readonly Candidate[],
  needs: RequestNeeds,
  weights: RoutingWeights,
): Candidate[] {
  const eligible = candidates.filter((candidate) => unmetNeed(candidate.profile, needs) === undefined);
  const share = normaliseWeights(weights);
  const cost = spreadScores(eligible.map((candidate) => Math.log(Math.max(Number(candidate.costMicros), 1))), 'lower');
  const speed = speedScores(eligible.map((candidate) => candidate.latencyMs));
  const accuracy = spreadScores(eligible.map((candidate) => candidate.profile.accuracy), 'higher');
  const scored = eligible.map((candidate, index) => ({
    candidate,
    score: share.cost * cost[index]! + share.speed * speed[index]! + share.accuracy * accuracy[index]!,
  }));
  scored.sort(
    (a, b) =>
      Number(b.candidate.healthy) - Number(a.candidate.healthy) ||
      b.score - a.score ||
      b.candidate.profile.accuracy - a.candidate.profile.accuracy ||
      Number(a.candidate.costMicros - b.candidate.costMicros) ||
      a.candidate.profile.model.localeCompare(b.candidate.profile.model),
  );
  return scored.map(({ candidate }) => candidate);
}
