// Every migration in order. Migrations are frozen in time: they import kysely only,
// never application code. Add a file, then list it here.
import type { Migration } from 'kysely';
import * as accounts from './20261122_0001_accounts.ts';
import * as keysAndConnections from './20261122_0002_keys_and_connections.ts';
import * as usageAndPrices from './20261122_0003_usage_and_prices.ts';
import * as connectionOptionsAndBilling from './20261122_0004_connection_options_and_billing.ts';
import * as budgets from './20261122_0005_budgets.ts';
import * as plansAndSite from './20261122_0101_plans_and_site.ts';
import * as auth from './20261122_0102_auth.ts';
import * as invitationsAndOverages from './20261122_0103_invitations_and_overages.ts';
import * as spendControl from './20261123_0001_spend_control.ts';
import * as usageRollups from './20261126_0001_usage_rollups.ts';
import * as demoTeams from './20261126_0002_demo_teams.ts';
import * as requestLog from './20261126_0003_request_log.ts';
import * as promptCapture from './20261126_0004_prompt_capture.ts';
import * as forecasts from './20261126_0005_forecasts.ts';
import * as advisor from './20261126_0006_advisor.ts';
import * as alerts from './20261126_0007_alerts.ts';
import * as usageRequestFacts from './20261126_0008_usage_request_facts.ts';
import * as alertForecastKinds from './20261126_0009_alert_forecast_kinds.ts';
import * as billing from './20261126_0010_billing.ts';
import * as stripeEvents from './20261126_0011_stripe_events.ts';
import * as keyedBodyHash from './20261126_0012_keyed_body_hash.ts';
import * as stripeCheckouts from './20261126_0013_stripe_checkouts.ts';
import * as requestedModel from './20261126_0020_requested_model.ts';
import * as usageRecords from './20261126_0021_usage_records.ts';
import * as advisorWording from './20261126_0022_advisor_wording.ts';
import * as gpu from './20261126_0023_gpu.ts';
import * as gpuIdleAlerts from './20261126_0024_gpu_idle_alerts.ts';
import * as demoNeverCharged from './20261127_0201_demo_never_charged.ts';
import * as demoFills from './20261127_0202_demo_fills.ts';
import * as invoiceNumbers from './20261128_0101_invoice_numbers.ts';
import * as lateUsage from './20261128_0102_late_usage.ts';
import * as auditChain from './20261128_0201_audit_chain.ts';
import * as singleSignOn from './20261128_0301_single_sign_on.ts';
import * as compliance from './20261128_0401_compliance.ts';
import * as rollupRebuilds from './20261128_0501_rollup_rebuilds.ts';
import * as ssoDomainOwnership from './20261129_0301_sso_domain_ownership.ts';
import * as usagePartitionUpkeep from './20261130_0001_usage_partition_upkeep.ts';
import * as spendDigests from './20261201_0001_spend_digests.ts';

export const migrations: Record<string, Migration> = {
  '20261122_0001_accounts': accounts,
  '20261122_0002_keys_and_connections': keysAndConnections,
  '20261122_0003_usage_and_prices': usageAndPrices,
  '20261122_0004_connection_options_and_billing': connectionOptionsAndBilling,
  '20261122_0005_budgets': budgets,
  '20261122_0101_plans_and_site': plansAndSite,
  '20261122_0102_auth': auth,
  '20261122_0103_invitations_and_overages': invitationsAndOverages,
  '20261123_0001_spend_control': spendControl,
  '20261126_0001_usage_rollups': usageRollups,
  '20261126_0002_demo_teams': demoTeams,
  '20261126_0003_request_log': requestLog,
  '20261126_0004_prompt_capture': promptCapture,
  '20261126_0005_forecasts': forecasts,
  '20261126_0006_advisor': advisor,
  '20261126_0007_alerts': alerts,
  '20261126_0008_usage_request_facts': usageRequestFacts,
  '20261126_0009_alert_forecast_kinds': alertForecastKinds,
  '20261126_0010_billing': billing,
  '20261126_0011_stripe_events': stripeEvents,
  '20261126_0012_keyed_body_hash': keyedBodyHash,
  '20261126_0013_stripe_checkouts': stripeCheckouts,
  '20261126_0020_requested_model': requestedModel,
  '20261126_0021_usage_records': usageRecords,
  '20261126_0022_advisor_wording': advisorWording,
  '20261126_0023_gpu': gpu,
  '20261126_0024_gpu_idle_alerts': gpuIdleAlerts,
  '20261127_0201_demo_never_charged': demoNeverCharged,
  '20261127_0202_demo_fills': demoFills,
  '20261128_0101_invoice_numbers': invoiceNumbers,
  '20261128_0102_late_usage': lateUsage,
  '20261128_0201_audit_chain': auditChain,
  '20261128_0301_single_sign_on': singleSignOn,
  '20261128_0401_compliance': compliance,
  '20261128_0501_rollup_rebuilds': rollupRebuilds,
  '20261129_0301_sso_domain_ownership': ssoDomainOwnership,
  '20261130_0001_usage_partition_upkeep': usagePartitionUpkeep,
  '20261201_0001_spend_digests': spendDigests,
};
