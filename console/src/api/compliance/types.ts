// Compliance readiness as /api/teams/{teamId} answers it: every retention setting of a team
// (raw usage events, captured prompts, raw GPU samples, the audit log) with its default and bounds (the access review itself is downloaded as a file).

/** One retention setting: what the team set (null: the default), what applies, the default and the bounds. */
export interface RetentionDays {
  days: number | null;
  effectiveDays: number;
  defaultDays: number;
  minDays: number;
  maxDays: number;
}

export interface TeamRetention {
  teamId: string;
  usageEvents: RetentionDays;
  promptCaptures: RetentionDays;
  gpuSamples: { hours: number | null; effectiveHours: number; defaultHours: number; minHours: number; maxHours: number };
  auditLog: RetentionDays;
}

/** What a save sends: a field left out is kept, null returns it to the default. */
export interface RetentionChanges {
  usageEventDays?: number | null;
  promptCaptureDays?: number | null;
  gpuSampleHours?: number | null;
  auditLogDays?: number | null;
}
