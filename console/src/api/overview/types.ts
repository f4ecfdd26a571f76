// A team's overview as GET /api/usage/team answers it: how far its setup has got and
// this month's usage, in total and per day (the dashboard's first screen).
import type { UsageTotals } from '../connections/types.ts';

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
  thisMonth: UsageTotals;
  /** Every day of this month up to today, oldest first. */
  daily: { date: string; requests: number; totalCostMicros: string }[];
}
