// Answers of one request's detail (GET /usage/requests/{id}), its captured prompt
// (GET /usage/requests/{id}/capture) and a team's prompt capture settings (/capture/…).
import type { RequestLogItem } from '../usage/types.ts';

/** One request of the log with how it was billed. */
export interface RequestDetail extends RequestLogItem {
  billingRule: string | null;
  billedCost: string | null;
  fxRatePpm: string | null;
  priceVersion: string | null;
}

export interface CapturedText {
  text: string;
  /** Its size before it was cut (UTF-8 bytes). */
  bytes: number;
  truncated: boolean;
}

/** A request's capture, redacted; `captured: false` when nothing is kept (capture off, or expired). */
export type PromptCapture =
  | { requestId: string; captured: false }
  | {
      requestId: string;
      captured: true;
      capturedAt: string;
      expiresAt: string;
      redactions: number;
      request: CapturedText;
      response: CapturedText & { streamed: boolean };
    };

export interface PromptCaptureSettings {
  teamId: string;
  enabled: boolean;
  retentionDays: number | null;
  effectiveRetentionDays: number;
  defaultRetentionDays: number;
  maxRetentionDays: number;
  redactionPatterns: string[];
  groups: { groupId: string; enabled: boolean }[];
}

export interface TeamCaptureChanges {
  enabled: boolean;
  retentionDays: number | null;
  redactionPatterns: string[];
}
