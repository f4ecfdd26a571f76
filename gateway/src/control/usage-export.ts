/**
 * GET /api/usage/export: a team's (or a group's) usage as a CSV file, streamed through
 * csv-stringify a page at a time, so memory stays flat at any number of events. The scope
 * rules are the other usage calls' (usageScope: who may read what, the team's calendar
 * days, the plan's look-back). Money is written as exact decimal strings of the integer
 * micro-units; an amount that could not be priced is an empty cell, never 0.
 *
 * granularity=request reads the usage events (keyset pages of store's usage-export.ts);
 * granularity=day reads the day rollups, one row per day × group × key × provider × model.
 *
 * format=focus writes FOCUS 1.2 (FinOps Foundation, specification/columns at tag v1.2):
 * every Mandatory column, and the Conditional and Recommended ones that apply, in the
 * spec's (alphabetical) order, then Spendgate's own columns prefixed x_. The mapping:
 * - BilledCost, EffectiveCost, ContractedCost, ListCost: the GBP the usage counted on the
 *   team's budgets (budget spend; what /usage/group/specific totals), in BillingCurrency
 *   GBP. Spendgate publishes no per-unit price in GBP (a request mixes token categories at
 *   different prices), so ListUnitPrice and ContractedUnitPrice are absent and the three
 *   other costs equal BilledCost, as the spec requires of a charge without a unit price.
 *   An unpriced request counted nothing: its costs are 0 (FOCUS allows no null cost) and
 *   x_UnpricedRequests says so; its USD list price (x_ListCostUsd) and what Spendgate bills
 *   for it (x_SpendgateBilledCost) stay empty.
 * - PricingCurrency USD (the providers' price lists are in USD, billing is in GBP);
 *   x_ListCostUsd is the provider's list price in it.
 * - BillingAccountId/Name: the team; SubAccountId/Name: the synthetic group.
 * - ProviderName and PublisherName: the AI provider (OpenAI, Anthropic, …);
 *   InvoiceIssuerName: the provider for BYOK keys (it bills the team directly), Spendgate
 *   for optimised and BYOM keys.
 * - ChargeCategory Usage, ChargeClass null (no corrections), ChargeFrequency Usage-Based,
 *   ServiceCategory 'AI and Machine Learning', ServiceSubcategory 'Generative AI',
 *   ServiceName '<provider> API', SkuId '<provider>/<model>'.
 * - ChargePeriodStart/End: the request's UTC hour, or the team's calendar day;
 *   BillingPeriodStart/End: the team's calendar month holding it. All UTC, YYYY-MM-DDTHH:mm:ssZ.
 * - PricingQuantity/ConsumedQuantity: the tokens (input, cached read, cache writes,
 *   output), PricingUnit/ConsumedUnit 'Tokens'.
 */
import { pipeline, Readable } from 'node:stream';
import { localDay, localDayStart, microsToDecimalString } from '@spendgate/core';
import { type ExportedDayCell, type ExportedEvent, type UsageFilter, type UsageMeasures, usageDayCells, usageEventPages } from '@spendgate/store';
import { stringify } from 'csv-stringify';
import { findProvider } from '../providers/registry.ts';
import { type UsageDeps, type UsageQuery, usageScope } from './usage-analytics.ts';

export type ExportFormat = 'csv' | 'focus';
export type ExportGranularity = 'request' | 'day';

export interface UsageExportQuery extends Omit<UsageQuery, 'granularity'> {
  format: ExportFormat;
  granularity: ExportGranularity;
}

/** The FOCUS 1.2 columns an export writes, in the spec's order (those of them marked Mandatory there are all here). */
export const FOCUS_COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'BillingAccountName',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargeFrequency',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'ConsumedQuantity',
  'ConsumedUnit',
  'ContractedCost',
  'EffectiveCost',
  'InvoiceIssuerName',
  'ListCost',
  'PricingCurrency',
  'PricingQuantity',
  'PricingUnit',
  'ProviderName',
  'PublisherName',
  'ServiceCategory',
  'ServiceName',
  'ServiceSubcategory',
  'SkuId',
  'SubAccountId',
  'SubAccountName',
] as const;

const TOKEN_COLUMNS = ['input_tokens', 'cached_read_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'output_tokens', 'reasoning_tokens', 'total_tokens'] as const;

const CSV_COLUMNS = {
  request: ['time', 'request_id', 'group_id', 'group_name', 'key_id', 'key_name', 'key_kind', 'provider', 'model', 'endpoint', 'status', ...TOKEN_COLUMNS, 'list_cost_usd', 'budget_spend_gbp', 'billed_gbp', 'estimated', 'unpriced', 'latency_ms'],
  day: ['date', 'group_id', 'group_name', 'key_id', 'key_name', 'key_kind', 'provider', 'model', 'requests', 'errors', ...TOKEN_COLUMNS, 'list_cost_usd', 'budget_spend_gbp', 'billed_gbp', 'estimated_requests', 'unpriced_requests', 'latency_mean_ms', 'latency_max_ms'],
} as const;

const FOCUS_CUSTOM_COLUMNS = {
  request: ['x_RequestId', 'x_RequestTime', 'x_Endpoint', 'x_StatusCode', 'x_LatencyMs'],
  day: ['x_LatencyMeanMs', 'x_LatencyMaxMs'],
} as const;

const FOCUS_SHARED_CUSTOM_COLUMNS = [
  'x_GroupName',
  'x_KeyId',
  'x_KeyName',
  'x_KeyKind',
  'x_Provider',
  'x_Model',
  'x_Requests',
  'x_Errors',
  'x_EstimatedRequests',
  'x_UnpricedRequests',
  'x_InputTokens',
  'x_CachedReadTokens',
  'x_CacheWrite5mTokens',
  'x_CacheWrite1hTokens',
  'x_OutputTokens',
  'x_ReasoningTokens',
  'x_ListCostUsd',
  'x_SpendgateBilledCost',
] as const;

/** The header of an export. */
export function exportColumns(format: ExportFormat, granularity: ExportGranularity): readonly string[] {
  return format === 'csv' ? CSV_COLUMNS[granularity] : [...FOCUS_COLUMNS, ...FOCUS_SHARED_CUSTOM_COLUMNS, ...FOCUS_CUSTOM_COLUMNS[granularity]];
}

type Row = Record<string, string | null>;

const money = (micros: bigint | null) => (micros === null ? null : microsToDecimalString(micros));
const totalTokens = (m: UsageMeasures) => m.inputTokens + m.cachedReadTokens + m.cacheWrite5mTokens + m.cacheWrite1hTokens + m.outputTokens;

/** A name a user chose, kept from being read as a formula by a spreadsheet. */
export function userText(value: string | null): string | null {
  return value !== null && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** YYYY-MM-DDTHH:mm:ssZ, as FOCUS writes a moment. */
const focusTime = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

const HOUR_MS = 3_600_000;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const nextMonth = (month: string) => {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
};

function tokenCells(m: UsageMeasures) {
  return {
    input_tokens: m.inputTokens.toString(),
    cached_read_tokens: m.cachedReadTokens.toString(),
    cache_write_5m_tokens: m.cacheWrite5mTokens.toString(),
    cache_write_1h_tokens: m.cacheWrite1hTokens.toString(),
    output_tokens: m.outputTokens.toString(),
    reasoning_tokens: m.reasoningTokens.toString(),
    total_tokens: totalTokens(m).toString(),
  };
}

function eventMeasures(event: ExportedEvent): UsageMeasures {
  return {
    ...event,
    requests: 1n,
    errors: event.statusCode >= 400 ? 1n : 0n,
    estimatedRequests: event.estimated ? 1n : 0n,
    unpricedRequests: event.costMicros === null ? 1n : 0n,
  };
}

export function createUsageExport(deps: UsageDeps) {
  return {
    /**
     * Checks the caller and the query, then gives the file's name and a stream of its
     * bytes. Nothing is read before the stream is; a failure while streaming destroys it.
     */
    async open(userId: string, query: UsageExportQuery): Promise<{ filename: string; stream: Readable }> {
      const scope = await usageScope(deps, userId, { ...query, granularity: undefined });
      // The export's rows come from a read replica when there is one (read-replicas.ts).
      const db = await deps.sql.readDb(userId);
      const team = await db.selectFrom('teams').select(['name']).where('id', '=', scope.teamId).executeTakeFirstOrThrow();
      const { format, granularity } = query;
      const { timeZone } = scope;
      const range = scope.filter('day');
      const filter: UsageFilter = { teamId: scope.teamId, from: range.from, to: range.to, groupId: query.groupId, keyId: query.keyId, model: query.model, provider: query.provider };

      /** The FOCUS columns of a row: its charge period, the month billing it, who and what. */
      const focusRow = (
        dims: { groupId: string | null; groupName: string | null; keyId: string | null; keyName: string | null; keyKind: string; provider: string; model: string },
        m: UsageMeasures,
        period: { start: Date; end: Date; day: string },
      ): Row => {
        const providerName = findProvider(dims.provider)?.name ?? dims.provider;
        const month = period.day.slice(0, 7);
        const billed = money(m.budgetSpendMicros ?? 0n);
        const tokens = totalTokens(m).toString();
        return {
          BilledCost: billed,
          BillingAccountId: scope.teamId,
          BillingAccountName: userText(team.name),
          BillingCurrency: 'GBP',
          BillingPeriodEnd: focusTime(localDayStart(`${nextMonth(month)}-01`, timeZone)),
          BillingPeriodStart: focusTime(localDayStart(`${month}-01`, timeZone)),
          ChargeCategory: 'Usage',
          ChargeClass: null,
          ChargeDescription: `${dims.model} on ${providerName}: ${tokens} tokens in ${m.requests} request${m.requests === 1n ? '' : 's'}`,
          ChargeFrequency: 'Usage-Based',
          ChargePeriodEnd: focusTime(period.end),
          ChargePeriodStart: focusTime(period.start),
          ConsumedQuantity: tokens,
          ConsumedUnit: 'Tokens',
          ContractedCost: billed,
          EffectiveCost: billed,
          InvoiceIssuerName: dims.keyKind === 'byok' ? providerName : 'Spendgate',
          ListCost: billed,
          PricingCurrency: 'USD',
          PricingQuantity: tokens,
          PricingUnit: 'Tokens',
          ProviderName: providerName,
          PublisherName: providerName,
          ServiceCategory: 'AI and Machine Learning',
          ServiceName: `${providerName} API`,
          ServiceSubcategory: 'Generative AI',
          SkuId: `${dims.provider}/${dims.model}`,
          SubAccountId: dims.groupId,
          SubAccountName: userText(dims.groupName ?? dims.groupId),
          x_GroupName: userText(dims.groupName),
          x_KeyId: dims.keyId,
          x_KeyName: userText(dims.keyName),
          x_KeyKind: dims.keyKind,
          x_Provider: dims.provider,
          x_Model: userText(dims.model),
          x_Requests: m.requests.toString(),
          x_Errors: m.errors.toString(),
          x_EstimatedRequests: m.estimatedRequests.toString(),
          x_UnpricedRequests: m.unpricedRequests.toString(),
          x_InputTokens: m.inputTokens.toString(),
          x_CachedReadTokens: m.cachedReadTokens.toString(),
          x_CacheWrite5mTokens: m.cacheWrite5mTokens.toString(),
          x_CacheWrite1hTokens: m.cacheWrite1hTokens.toString(),
          x_OutputTokens: m.outputTokens.toString(),
          x_ReasoningTokens: m.reasoningTokens.toString(),
          x_ListCostUsd: money(m.costMicros),
          x_SpendgateBilledCost: money(m.billedMicros),
        };
      };

      const eventRow = (event: ExportedEvent): Row => {
        const m = eventMeasures(event);
        if (format === 'focus') {
          const start = new Date(Math.floor(event.occurredAt.getTime() / HOUR_MS) * HOUR_MS);
          return {
            ...focusRow(event, m, { start, end: new Date(start.getTime() + HOUR_MS), day: localDay(event.occurredAt, timeZone) }),
            x_RequestId: event.requestId,
            x_RequestTime: focusTime(event.occurredAt),
            x_Endpoint: event.endpoint,
            x_StatusCode: String(event.statusCode),
            x_LatencyMs: String(event.latencyMs),
          };
        }
        return {
          time: event.occurredAt.toISOString(),
          request_id: event.requestId,
          group_id: event.groupId,
          group_name: userText(event.groupName),
          key_id: event.keyId,
          key_name: userText(event.keyName),
          key_kind: event.keyKind,
          provider: event.provider,
          model: userText(event.model),
          endpoint: event.endpoint,
          status: String(event.statusCode),
          ...tokenCells(m),
          list_cost_usd: money(event.costMicros),
          budget_spend_gbp: money(event.budgetSpendMicros),
          billed_gbp: money(event.billedMicros),
          estimated: String(event.estimated),
          unpriced: String(event.costMicros === null),
          latency_ms: String(event.latencyMs),
        };
      };

      const dayRow = (day: string, cell: ExportedDayCell): Row => {
        const meanLatency = cell.requests === 0n ? '0' : (cell.latencySumMs / cell.requests).toString();
        if (format === 'focus') {
          return {
            ...focusRow(cell, cell, { start: localDayStart(day, timeZone), end: localDayStart(nextDay(day), timeZone), day }),
            x_LatencyMeanMs: meanLatency,
            x_LatencyMaxMs: String(cell.latencyMaxMs),
          };
        }
        return {
          date: day,
          group_id: cell.groupId,
          group_name: userText(cell.groupName),
          key_id: cell.keyId,
          key_name: userText(cell.keyName),
          key_kind: cell.keyKind,
          provider: cell.provider,
          model: userText(cell.model),
          requests: cell.requests.toString(),
          errors: cell.errors.toString(),
          ...tokenCells(cell),
          list_cost_usd: money(cell.costMicros),
          budget_spend_gbp: money(cell.budgetSpendMicros),
          billed_gbp: money(cell.billedMicros),
          estimated_requests: cell.estimatedRequests.toString(),
          unpriced_requests: cell.unpricedRequests.toString(),
          latency_mean_ms: meanLatency,
          latency_max_ms: String(cell.latencyMaxMs),
        };
      };

      async function* rows(): AsyncGenerator<Row> {
        if (granularity === 'request') {
          for await (const page of usageEventPages(db, filter)) for (const event of page) yield eventRow(event);
          return;
        }
        for (let day = scope.startDate; day <= scope.endDate; day = nextDay(day)) {
          for (const cell of await usageDayCells(db, filter, localDayStart(day, timeZone))) yield dayRow(day, cell);
        }
      }

      const columns = [...exportColumns(format, granularity)];
      const csv = stringify({ header: true, columns, record_delimiter: 'windows' });
      // A failure while streaming destroys `csv` with the error: Fastify logs it and cuts the response short.
      const stream = pipeline(Readable.from(rows()), csv, () => {});
      const teamSlug = team.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'team';
      const filename = `spendgate-${format === 'focus' ? 'focus-1.2' : 'usage'}-${granularity}-${teamSlug}-${scope.startDate}-to-${scope.endDate}.csv`;
      return { filename, stream };
    },
  };
}

export type UsageExport = ReturnType<typeof createUsageExport>;
