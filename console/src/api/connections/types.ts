// Providers and a team's connections to them, as /api/provider answers them (spec §3:
// a connection has an id, a status and a usage record; creating answers `newConnection`).
// The API key is write-only: answers carry only its masked last four characters.
import type { UsageAmounts } from '../usage/types.ts';

/** A provider Spendgate can call, with what a connection to it needs. */
export interface Provider {
  id: string;
  name: string;
  /** The wire format its native API speaks (openai, anthropic, gemini). */
  format: string;
  authFields: { name: string; label: string; type: string; required: boolean }[];
  /** `default` null: the connection must name its base URL (Azure, self-hosted endpoints). */
  baseUrl: { default: string | null; required: boolean; rules: string };
  /** The models the price catalog lists for it. */
  models: string[];
  /** Settings a connection to it may give beside key and URL (e.g. Azure's API version); empty means the provider's default. */
  optionFields: { name: string; label: string; help: string; placeholder: string }[];
}

export const CONNECTION_STATUSES = ['active', 'disabled'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export interface Connection {
  id: string;
  teamId: string;
  provider: string;
  name: string;
  baseUrl: string;
  /** Why the base URL is refused now (e.g. after the operator's allow-list changed); null when allowed. */
  baseUrlProblem: string | null;
  status: string;
  options: Record<string, unknown>;
  /** e.g. "••••abcd" */
  apiKeyTail: string;
  createdAt: string;
}

/** Usage through a connection this month (the team's calendar) so far, as the list carries it. */
export interface MonthUsage extends UsageAmounts {
  /** The month's first day the plan's look-back shows, yyyy-mm-dd. */
  startDate: string;
  endDate: string;
}

export interface ListedConnection extends Connection {
  /** Null unless you are an admin of the connection's team (its whole usage is theirs to see). */
  thisMonth: MonthUsage | null;
}

export interface NewConnectionInput {
  teamId: string;
  provider: string;
  name: string;
  apiKey: string;
  baseUrl?: string;
  options?: Record<string, string>;
}

/** What an edit may change; an absent field stays as it is (the key is replaced only when given). */
export interface ConnectionChanges {
  name?: string;
  apiKey?: string;
  baseUrl?: string;
  options?: Record<string, string>;
}

/** A live check of a stored connection (`connectionId`) or of settings not saved yet. */
export type ConnectionTestInput = { connectionId: string } | { teamId: string; provider: string; apiKey?: string; baseUrl?: string };

export interface ConnectionTested {
  ok: boolean;
  provider: string;
  baseUrl: string;
  latencyMs: number;
}
