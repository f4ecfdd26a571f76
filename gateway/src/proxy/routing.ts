/**
 * The router: turns a request into the ordered attempts (upstream + model) the relay
 * tries, with the reason it chose them, and keeps each upstream model's health (circuit
 * breaker, live latency) in this process; a circuit that opens or closes here is news
 * for the deployment's other gateways, which open or close theirs on hearing it.
 *   BYOK / BYOM         the requested model on the key's connection (retries only)
 *   optimised `auto`    the policy's ranking of every profiled model an operator account
 *                       serves that can take the request (core/src/routing)
 *   optimised, named    that model, then the key's `routing.fallbacks`, then the policy's
 *                       alternatives of the same quality tier or above
 * A model the key's `modelOverrides` replace is routed as the model sent instead (BYOK:
 * through the team connection the override names, when it names one).
 * A spent downgrade budget swaps each model for the cheaper sibling of its family.
 */
import {
  AppError,
  type BreakerOptions,
  CircuitBreaker,
  costOfRequest,
  describeWeights,
  LatencyAverage,
  MODEL_PROFILES,
  modelProfile,
  type PriceCatalog,
  plainUsage,
  type RequestNeeds,
  type RouteCandidate,
  rankCandidates,
  unmetNeed,
} from '@spendgate/core';
import type { Broadcast } from '@spendgate/store';
import type { Operation } from '../providers/formats/index.ts';
import { modelOverrideFor, type Principal } from './principals.ts';
import type { Upstream, UpstreamResolver } from './upstreams.ts';

/** Upstream models whose health is tracked at most (the oldest is forgotten first): callers name models freely. */
const MAX_TRACKED_MODELS = 10_000;
/** The most attempts (distinct models) one request may make. */
const MAX_ATTEMPTS = 4;
/** What `auto` chooses models for: the profiles describe chat models. */
const ROUTED_OPERATIONS: ReadonlySet<Operation> = new Set(['chat', 'responses']);
/** Output assumed when comparing costs of a request that sets no output limit. */
const EXPECTED_OUTPUT_TOKENS = 1000;

export interface Attempt {
  upstream: Upstream;
  model: string;
}

export interface RoutePlan {
  attempts: Attempt[];
  /** Why these models, e.g. `auto: cost 0.6 speed 0.2 accuracy 0.2 -> gpt-4o-mini`. */
  reason: string;
}

/** What a gateway tells the others when the circuit of an upstream model (`account/model`) opens or closes. */
export interface CircuitNews {
  circuit: string;
  open: boolean;
}

const isCircuitNews = (news: unknown): news is CircuitNews =>
  typeof news === 'object' &&
  news !== null &&
  typeof (news as CircuitNews).circuit === 'string' &&
  typeof (news as CircuitNews).open === 'boolean';

/**
 * Health of upstream models: a circuit breaker and a latency average each, keyed by
 * account and model. With `news`, circuits that open or close here are told to the other
 * gateways, and theirs are taken in (latency stays each process's own measure).
 */
export function createUpstreamHealth(deps: { now: () => number; breaker?: BreakerOptions; news?: Broadcast<CircuitNews> }) {
  const breakers = new Map<string, CircuitBreaker>();
  const latencies = new Map<string, LatencyAverage>();
  /** The provider of each circuit tried here (a circuit known only from news has none). */
  const providers = new Map<string, string>();
  const keyOf = ({ upstream, model }: Attempt) => `${upstream.connectionId ?? upstream.adapter.id}/${model}`;
  /** The entry of `map` for a circuit, created on first use. */
  const entryOf = <T>(map: Map<string, T>, circuit: string, create: () => T): T => {
    const existing = map.get(circuit);
    if (existing) return existing;
    const created = create();
    if (map.size >= MAX_TRACKED_MODELS) map.delete(map.keys().next().value!);
    map.set(circuit, created);
    return created;
  };
  const breakerOf = (circuit: string) => entryOf(breakers, circuit, () => new CircuitBreaker(deps.breaker));
  deps.news?.subscribe((news) => {
    if (!isCircuitNews(news)) return;
    if (news.open) breakerOf(news.circuit).openedElsewhere(deps.now());
    else breakers.get(news.circuit)?.succeeded();
  });
  return {
    /** False while the attempt's circuit is open (or its half-open probe is out). */
    allows: (attempt: Attempt) => breakers.get(keyOf(attempt))?.allows(deps.now()) ?? true,
    started(attempt: Attempt) {
      const circuit = keyOf(attempt);
      if (!providers.has(circuit)) entryOf(providers, circuit, () => attempt.upstream.adapter.catalogProvider);
      breakerOf(circuit).started(deps.now());
    },
    succeeded(attempt: Attempt, latencyMs: number) {
      const circuit = keyOf(attempt);
      if (breakerOf(circuit).succeeded()) deps.news?.publish({ circuit, open: false });
      entryOf(latencies, circuit, () => new LatencyAverage()).add(latencyMs);
    },
    failed(attempt: Attempt) {
      const circuit = keyOf(attempt);
      if (breakerOf(circuit).failed(deps.now())) deps.news?.publish({ circuit, open: true });
    },
    latencyMs: (attempt: Attempt) => latencies.get(keyOf(attempt))?.valueMs(),
    /** Every circuit's provider and state now (for /metrics). */
    circuits: () =>
      [...breakers].map(([circuit, breaker]) => ({ provider: providers.get(circuit) ?? 'unknown', state: breaker.state(deps.now()) })),
  };
}

export type UpstreamHealth = ReturnType<typeof createUpstreamHealth>;

export function createRouter(deps: { upstreams: UpstreamResolver; catalog: PriceCatalog; health: UpstreamHealth }) {
  /** What the request would cost on an attempt (micro-USD), undefined when unpriced. */
  const estimatedCost = ({ upstream, model }: Attempt, needs: RequestNeeds, at: Date): bigint | undefined => {
    const usage = plainUsage(needs.promptTokens, needs.maxOutputTokens ?? EXPECTED_OUTPUT_TOKENS);
    const cost = costOfRequest(deps.catalog, { provider: upstream.adapter.catalogProvider, model, usage, at });
    return cost.status === 'priced' ? cost.totalMicros : undefined;
  };

  /** Every profiled model an operator account serves, as policy candidates. */
  const operatorCandidates = (needs: RequestNeeds, at: Date): (RouteCandidate & { attempt: Attempt })[] =>
    MODEL_PROFILES.flatMap((profile) => {
      const upstream = deps.upstreams.operatorUpstreamFor(profile.model, at);
      if (!upstream) return [];
      const attempt = { upstream, model: profile.model };
      const costMicros = estimatedCost(attempt, needs, at);
      if (costMicros === undefined) return [];
      return [{ attempt, profile, costMicros, latencyMs: deps.health.latencyMs(attempt), healthy: deps.health.allows(attempt) }];
    });

  /**
   * Whether planning reads what a request needs (its prompt's tokens, features): only for
   * optimised keys, whose models the router chooses; BYOK and BYOM keys get the model they
   * name on their own connection.
   */
  const choosesAmongModels = (principal: Principal) => principal.kind === 'optimised';

  const weightsOf = (principal: Principal) => principal.settings.routing?.weights ?? principal.plan.routingWeights;

  const withoutRepeats = (attempts: Attempt[]) =>
    attempts.filter((attempt, index) => attempts.findIndex((other) => other.model === attempt.model) === index).slice(0, MAX_ATTEMPTS);

  return {
    health: deps.health,

    choosesAmongModels,

    /**
     * The attempts for a request, best first; a model the key's settings override is
     * replaced before anything else (`override: gpt-4o -> gpt-4o-mini`). Throws 400 when
     * no model can serve it.
     */
    plan(principal: Principal, request: { model: string; operation: Operation; needs: RequestNeeds }, at: Date): RoutePlan {
      const override = modelOverrideFor(principal, request.model);
      const model = override?.with ?? request.model;
      if (!choosesAmongModels(principal)) {
        const upstream = deps.upstreams.resolve(principal, model, at, override?.connectionId);
        const through = override?.connectionId === undefined ? '' : ` via ${upstream.adapter.id}`;
        return { attempts: [{ upstream, model }], reason: override ? `override: ${request.model} -> ${model}${through}` : 'requested' };
      }
      const weights = weightsOf(principal);
      if (model === 'auto') {
        if (!ROUTED_OPERATIONS.has(request.operation)) {
          throw new AppError(400, 'model_not_available', 'Model "auto" chooses chat models: name a model for this endpoint');
        }
        const ranked = rankCandidates(operatorCandidates(request.needs, at), request.needs, weights);
        const best = ranked[0];
        if (!best) {
          throw new AppError(400, 'no_model_fits', 'No model this key may use can serve this request (context window, tools, images or JSON mode)');
        }
        return {
          attempts: withoutRepeats(ranked.map((candidate) => candidate.attempt)),
          reason: `auto: ${describeWeights(weights)} -> ${best.profile.model}`,
        };
      }
      const requested = { upstream: deps.upstreams.resolve(principal, model, at), model };
      const fallbacks = (principal.settings.routing?.fallbacks ?? []).flatMap((model) => {
        const upstream = deps.upstreams.operatorUpstreamFor(model, at);
        const profile = modelProfile(model);
        return upstream && !(profile && unmetNeed(profile, request.needs)) ? [{ upstream, model }] : [];
      });
      const tier = modelProfile(model)?.tier;
      const alternatives =
        tier === undefined
          ? []
          : rankCandidates(
              operatorCandidates(request.needs, at).filter((candidate) => candidate.profile.tier >= tier),
              request.needs,
              weights,
            ).map((candidate) => candidate.attempt);
      return { attempts: withoutRepeats([requested, ...fallbacks, ...alternatives]), reason: override ? `override: ${request.model} -> ${model}` : 'requested' };
    },

    /**
     * The plan for a request covered by a spent downgrade budget: each model replaced by
     * its family's cheaper sibling — on the same connection for BYOK/BYOM, on the
     * operator account that serves it for optimised keys.
     */
    downgrade(principal: Principal, plan: RoutePlan, budgetId: string, at: Date): RoutePlan {
      const cheaper = (attempt: Attempt): Attempt => {
        const sibling = modelProfile(attempt.model)?.cheaperSibling;
        if (!sibling) return attempt;
        const upstream = principal.kind === 'optimised' ? deps.upstreams.operatorUpstreamFor(sibling, at) : attempt.upstream;
        return upstream ? { upstream, model: sibling } : attempt;
      };
      const attempts = withoutRepeats(plan.attempts.map(cheaper));
      const from = plan.attempts[0]!.model;
      const to = attempts[0]!.model;
      const change = from === to ? `no cheaper model than ${from}` : `${from} -> ${to}`;
      return { attempts, reason: `${plan.reason}; downgrade (budget ${budgetId} spent): ${change}` };
    },
  };
}

export type Router = ReturnType<typeof createRouter>;
