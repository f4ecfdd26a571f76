/**
 * What a team can set on one issued key: per-minute rate limits, the upstream timeout,
 * and (optimised keys) how the router weighs cost, speed and accuracy plus models to
 * fall back to in order. Every field is optional; an absent one means the default
 * (no rate limit, the gateway's UPSTREAM_TIMEOUT_MS, the plan's routing weights).
 */
export interface RoutingWeights {
  cost: number;
  speed: number;
  accuracy: number;
}

export interface KeySettings {
  rateLimit?: { requestsPerMinute?: number; tokensPerMinute?: number };
  timeoutMs?: number;
  routing?: { weights?: RoutingWeights; fallbacks?: string[] };
}

/** Bounds the API enforces on key settings. */
export const KEY_SETTING_LIMITS = {
  maxPerMinute: 100_000_000,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 600_000,
  maxFallbacks: 5,
} as const;
