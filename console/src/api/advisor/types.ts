// The AI advisor as /api/usage/ai-advisor answers it: insights on a team's usage, each
// with its evidence, exact GBP amounts (six-decimal strings), the change to make, what it
// was charged and — once applied — the saving realised.
import type { AdvisorChange, FindingKind, IdlePeriod } from '@spendgate/core';

export type { AdvisorChange };

export interface AdvisorInsight {
  id: string;
  kind: FindingKind;
  title: string;
  text: string;
  subject: { keyId: string | null; connectionId: string | null; provider: string | null; model: string | null };
  evidence: { requests: number; exampleRequestIds: string[]; facts: Record<string, string | number>; idlePeriods?: IdlePeriod[] };
  confidence: 'high' | 'medium' | 'low';
  currency: 'GBP';
  currentCost: string;
  counterfactualCost: string;
  estimatedMonthlySaving: string;
  /** Null until the change is applied and a whole day has passed (or when it cannot be measured). */
  realisedMonthlySaving: string | null;
  change: AdvisorChange;
  price: string;
  startDate: string;
  endDate: string;
  createdAt: string;
  refreshedAt: string;
  appliedAt: string | null;
}

export interface AdvisorInsights {
  teamId: string;
  /** A demo team's: its tips are free, never charged. */
  demo: boolean;
  currency: 'GBP';
  totalCharged: string;
  insights: AdvisorInsight[];
}

/** The team's wording setting: off by default; when on, its model rewords the tips (the figures stay the detectors'). */
export interface AdvisorWordingSetting {
  teamId: string;
  enabled: boolean;
  /** connection: one of the team's connections; operator: the operator's upstream for optimised keys. */
  source: 'connection' | 'operator';
  connectionId: string | null;
  model: string;
  /** Whether the deployment has an operator upstream to choose. */
  operatorAvailable: boolean;
  updatedAt: string | null;
}

export type AdvisorWordingChange = Pick<AdvisorWordingSetting, 'enabled' | 'source' | 'connectionId' | 'model'>;

/** What a generate call analyses: groups, keys and one date range; none: the whole team's last 30 days. */
export type AdvisorTarget = { type: 'group'; id: string } | { type: 'key'; id: string } | { type: 'dateRange'; startDate: string; endDate: string };

export interface AdvisorRun {
  teamId: string;
  /** A demo team's: its tips are free, never charged. */
  demo: boolean;
  startDate: string;
  endDate: string;
  currency: 'GBP';
  found: number;
  created: number;
  /** Tips worded by the team's wording model (0 with wording off). */
  written: number;
  charged: string;
  insights: AdvisorInsight[];
}
