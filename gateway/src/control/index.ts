// The control plane's services, built once per process from the stores and secrets.
import type { PriceCatalog } from '@spendgate/core';
import type { Config, Envelope, JobPayloads, JobQueue, KeyCache, OutboundGuard, SpendLedger, SqlStore } from '@spendgate/store';
import { createMailer } from '@spendgate/store';
import { createStripeClient } from '@spendgate/worker';
import { operatorAccounts } from '../providers/operator-upstreams.ts';
import { createTxtResolver } from '../security/dns-txt.ts';
import { createGoogleSignIn } from '../security/google-id-tokens.ts';
import { createOneTimeCodes } from '../security/one-time-codes.ts';
import { createRateLimiter } from '../security/rate-limit.ts';
import type { SessionTokens } from '../security/session-tokens.ts';
import { createAccess } from './access.ts';
import { createAccountService } from './accounts.ts';
import { createAdvisor } from './advisor.ts';
import { createAdvisorWording } from './advisor-wording.ts';
import { createAlertService } from './alerts.ts';
import { createAuditService } from './audit.ts';
import { createBudgetService } from './budgets.ts';
import { createComplianceService } from './compliance.ts';
import { createConnectionService } from './connections.ts';
import { createDemoService } from './demo/index.ts';
import { createForecastService } from './forecasts.ts';
import { createGpuService } from './gpu.ts';
import { createGroupService } from './groups.ts';
import { createInvitations } from './invitations.ts';
import { createKeySettingsCheck } from './key-settings.ts';
import { createPaymentService } from './payments.ts';
import { createPlanService } from './plans.ts';
import { createPricingService } from './price-overrides.ts';
import { createPromptCaptureService } from './prompt-captures.ts';
import { createRequestLog } from './request-log.ts';
import { createSiteContentService } from './site-content.ts';
import { createSsoService } from './sso.ts';
import { createSubscriptionService } from './subscriptions.ts';
import { createTeamService } from './teams.ts';
import { createUsageService } from './usage.ts';
import { createUsageAnalytics } from './usage-analytics.ts';
import { createUsageExport } from './usage-export.ts';

export async function createControlPlaneServices(deps: {
  config: Config;
  sql: SqlStore;
  queue: JobQueue<JobPayloads>;
  envelope: Envelope;
  sessions: SessionTokens;
  keyCache: Pick<KeyCache<unknown>, 'invalidate'>;
  ledger: Pick<SpendLedger, 'read' | 'spend'>;
  catalog: PriceCatalog;
  outbound: OutboundGuard;
  /** The clock trials and subscriptions are read on (tests set it). */
  now?: () => Date;
}) {
  const { config, sql } = deps;
  const clock = deps.now ? { now: deps.now } : {};
  const plans = createPlanService({ sql, ...clock });
  await plans.seedPlans();
  const access = createAccess({ sql });
  const mailer = createMailer({ sql, queue: deps.queue });
  const usageAnalytics = createUsageAnalytics({ sql, access, plans });
  const limiter = createRateLimiter({ db: sql.db });
  const invitations = createInvitations({ mailer, publicUrl: config.publicUrl });
  const accounts = createAccountService({
    sql,
    sessions: deps.sessions,
    codes: createOneTimeCodes(config.secrets.jwtSecret),
    limiter,
    mailer,
    plans,
    platformAdminEmails: config.platformAdminEmails,
    google: config.google.clientId
      ? createGoogleSignIn({ clientId: config.google.clientId, jwksUrl: config.google.jwksUrl, scriptUrl: config.google.signInScriptUrl })
      : undefined,
  });
  const teams = createTeamService({ sql, access, plans, invitations, accounts, keyCache: deps.keyCache, queue: deps.queue });
  // The price-catalog providers of Spendgate's own accounts: what optimised keys can be sent to.
  const operatorProviders = operatorAccounts(config.optimisedUpstreams).map((account) => account.adapter.catalogProvider);
  const checkSettings = createKeySettingsCheck({ catalog: deps.catalog, operatorProviders });
  const subscriptions = createSubscriptionService({ sql, access, keyCache: deps.keyCache, ...clock });
  const audit = createAuditService({ sql, access, plans });
  const promptCaptures = createPromptCaptureService({ sql, access, plans, envelope: deps.envelope, keyCache: deps.keyCache, config });
  const services = {
    accounts,
    plans,
    teams,
    groups: createGroupService({ sql, access, plans, teams, invitations, usage: usageAnalytics, keyCache: deps.keyCache, checkSettings }),
    connections: createConnectionService({
      sql,
      envelope: deps.envelope,
      access,
      usage: usageAnalytics,
      catalog: deps.catalog,
      keyCache: deps.keyCache,
      outbound: deps.outbound,
      limiter,
    }),
    usage: createUsageService({ sql, access, analytics: usageAnalytics }),
    usageAnalytics,
    usageExport: createUsageExport({ sql, access, plans }),
    requestLog: createRequestLog({ sql, access, plans }),
    audit,
    pricing: createPricingService({ sql, access }),
    promptCaptures,
    compliance: createComplianceService({ sql, access, plans, promptCaptures, audit, config }),
    forecasts: createForecastService({ sql, access, queue: deps.queue }),
    budgets: createBudgetService({ sql, access, ledger: deps.ledger, keyCache: deps.keyCache }),
    alerts: createAlertService({ sql, access, plans, envelope: deps.envelope, outbound: deps.outbound, queue: deps.queue, limiter }),
    gpu: createGpuService({ sql, access, plans, outbound: deps.outbound, queue: deps.queue }),
    site: createSiteContentService({ sql }),
    sso: createSsoService({
      sql,
      access,
      plans,
      envelope: deps.envelope,
      outbound: deps.outbound,
      accounts,
      teams,
      limiter,
      resolveTxt: createTxtResolver(config.dnsServers),
      publicUrl: config.publicUrl,
      stateKey: config.secrets.jwtSecret,
    }),
    subscriptions,
    demo: createDemoService({ sql, queue: deps.queue }),
    payments: createPaymentService({
      sql,
      queue: deps.queue,
      stripe: createStripeClient(config.stripe),
      stripeConfig: config.stripe,
      publicUrl: config.publicUrl,
      refreshKeys: subscriptions.refreshKeys,
      ...clock,
    }),
  };
  const advisorWording = createAdvisorWording({ sql, access, plans, envelope: deps.envelope, outbound: deps.outbound, ledger: deps.ledger, catalog: deps.catalog, config });
  return {
    ...services,
    advisorWording,
    advisor: createAdvisor({ sql, access, plans, catalog: deps.catalog, operatorProviders, groups: services.groups, wording: advisorWording }),
  };
}

export type ControlPlaneServices = Awaited<ReturnType<typeof createControlPlaneServices>>;
