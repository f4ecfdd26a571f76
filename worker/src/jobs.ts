// The typed map from job name to payload, shared by the producers (gateway) and the
// processors. Payloads are JSON: money travels as integer strings, never floats, and
// no payload ever carries a secret.
import type { Usage } from '@spendgate/core';

export interface UsageEventJob {
  requestId: string;
  occurredAt: string;
  teamId: string;
  groupId: string;
  keyId: string;
  connectionId: string | null;
  provider: string;
  model: string;
  endpoint: string;
  statusCode: number;
  streamed: boolean;
  estimated: boolean;
  usage: Usage;
  /** Integer micro-units as a string; null when the model has no price (unpriced). */
  costMicros: string | null;
  currency: string;
  priceVersion: string | null;
  latencyMs: number;
}

export type JobPayloads = {
  meter: UsageEventJob;
};
