// The AI advisor as /api/usage/ai-advisor answers it: insights on a team's usage, each
// with its evidence, exact GBP amounts (six-decimal strings), the change to make, what it
// was charged and — once applied — the saving realised.
import type { AdvisorChange, FindingKind } from '@spendgate/core';

export type { AdvisorChange };

export interface AdvisorInsight {
  id: string;
  kind: FindingKind;
  title: string;
  text: string;
  subject: { keyId: string | null; connectionId: string | null; provider: string | null; model: string | null };
  evidence: { requests: number; exampleRequestIds: string[]; facts: Record<string, string | number> };
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
  currency: 'GBP';
  totalCharged: string;
  insights: AdvisorInsight[];
}

/** What a generate call analyses: groups, keys and one date range; none: the whole team's last 30 days. */
/** Opt-in: the model that words the tips, called through one of the team's connections. */
export interface AdvisorWordingChoice {
  connectionId: string;
  model: string;
}

export type AdvisorTarget = { type: 'group'; id: string } | { type: 'key'; id: string } | { type: 'dateRange'; startDate: string; endDate: string };

export interface AdvisorRun {
  teamId: string;
  startDate: string;
  endDate: string;
  currency: 'GBP';
  found: number;
  created: number;
  /** Tips worded by the model chosen in `wording` (0 without it). */
  written: number;
  charged: string;
  insights: AdvisorInsight[];
}
