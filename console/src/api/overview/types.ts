// A team's overview as GET /api/usage/team answers it: how far its setup has got and,
// for its admins, this month's usage in total and per day (the dashboard's first screen).
import type { DemoStatus, UsageTotals } from '../usage/types.ts';

export interface TeamOverview {
  teamId: string;
  setup: {
    connections: number;
    groups: number;
    /** Live keys in the groups the user can see. */
    keys: number;
    /** ISO time of the team's first recorded request; null before any. */
    firstRequestAt: string | null;
  };
  /** A demo team's sample usage, how far it has been recorded; null for a team that is not a demo team. */
  demo: DemoStatus | null;
  /** From the first day of this month the plan's look-back shows; null unless you are a team admin. */
  thisMonth: UsageTotals | null;
  /** Every day of thisMonth, oldest first, its cost in GBP micro-units; empty when thisMonth is null. */
  daily: { date: string; requests: number; totalCostMicros: string }[];
}
