// prune: deletes what nothing reads any more, so these tables stop growing with every
// sign-up and every rate-limited call: one-time codes a day after they were made (a code
// lives 10 minutes, a sign-up confirmation counts for an hour), rate-limit windows a day
// after they started (the longest is an hour), and delivered mail after a week (messages
// still pending stay until they are delivered), and usage events past the configured
// retention (each team's own, at most USAGE_EVENT_RETENTION_DAYS; their rollups stay, so
// totals, series and distributions keep every day), and captured prompts once they expire
// (each at its capture time plus its team's retention), and raw GPU samples past their
// team's retention (at most GPU_SAMPLE_RETENTION_HOURS; their classified minutes stay),
// single sign-ins a day after they expired (a state lives 10 minutes), and audit entries past
// their team's audit retention (the oldest of each chain, which is anchored at the last one
// deleted so it still verifies). Deleting twice deletes nothing more.
import {
  deleteDeliveredMailBefore,
  deleteExpiredPromptCaptures,
  deleteGpuSamplesPastRetention,
  deleteHitsBefore,
  deleteOtpsCreatedBefore,
  deleteUsageEventsPastRetention,
  type Logger,
  pruneSsoSignIns,
  pruneAuditLog,
  type SqlStore,
} from '@spendgate/store';

const DAY_MS = 24 * 3_600_000;
export const OTP_RETENTION_MS = DAY_MS;
export const RATE_LIMIT_RETENTION_MS = DAY_MS;
export const DELIVERED_MAIL_RETENTION_MS = 7 * DAY_MS;
export const SSO_SIGN_IN_RETENTION_MS = DAY_MS;

export function createPruneProcessor(deps: { sql: Pick<SqlStore, 'db'>; log: Logger; usageEventRetentionDays: number; gpuSampleRetentionHours: number }) {
  return async (): Promise<void> => {
    const at = Date.now();
    const deleted = {
      oneTimeCodes: await deleteOtpsCreatedBefore(deps.sql.db, new Date(at - OTP_RETENTION_MS)),
      rateLimitWindows: await deleteHitsBefore(deps.sql.db, new Date(at - RATE_LIMIT_RETENTION_MS)),
      deliveredMail: await deleteDeliveredMailBefore(deps.sql.db, new Date(at - DELIVERED_MAIL_RETENTION_MS)),
      usageEvents: await deleteUsageEventsPastRetention(deps.sql.db, new Date(at), deps.usageEventRetentionDays),
      promptCaptures: await deleteExpiredPromptCaptures(deps.sql.db, new Date(at)),
      gpuSamples: await deleteGpuSamplesPastRetention(deps.sql.db, new Date(at), deps.gpuSampleRetentionHours),
      ssoSignIns: await pruneSsoSignIns(deps.sql.db, new Date(at - SSO_SIGN_IN_RETENTION_MS)),
      auditEntries: await pruneAuditLog(deps.sql.db, new Date(at)),
    };
    deps.log.info({ deleted }, 'prune: deleted what is past its retention');
  };
}
