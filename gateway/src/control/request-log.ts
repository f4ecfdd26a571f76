/**
 * The request log: a team's (or a group's) requests newest first, a page at a time, each
 * with what it cost and how it went, and one request in detail. Pages are keyset cursors
 * (the last request's time and id, opaque to the caller), so a page costs the same deep in
 * a long history. Who may read it, and which days, follow the usage calls (usageScope).
 */
import { microsToDecimalString, NotFoundError, ValidationError } from '@spendgate/core';
import { findUsageEvent, requestLogPage } from '@spendgate/store';
import { type UsageDeps, type UsageQuery, usageScope } from './usage-analytics.ts';

export const REQUEST_LOG_PAGE = { default: 50, max: 200 } as const;

type LoggedEvent = NonNullable<Awaited<ReturnType<typeof findUsageEvent>>>;

/** A time as PostgreSQL writes a timestamptz, to the microsecond (what a cursor holds). */
const DATABASE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

/** The opaque cursor of the page after `event`: its time to the microsecond and its request id. */
function cursorAfter(event: { cursor_at: string; request_id: string }): string {
  return Buffer.from(`${event.cursor_at}|${event.request_id}`).toString('base64url');
}

function readCursor(cursor: string): { at: string; requestId: string } {
  const [at = '', requestId = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!DATABASE_TIME.test(at) || requestId.length === 0 || requestId.length > 200) {
    throw new ValidationError('cursor', 'cursor must be the nextCursor of a previous page');
  }
  return { at, requestId };
}

/** What the log shows of one request. */
function entryOf(event: LoggedEvent) {
  const tokens = [event.input_tokens, event.cached_read_tokens, event.cache_write_5m_tokens, event.cache_write_1h_tokens, event.output_tokens].map((count) => BigInt(count));
  return {
    requestId: event.request_id,
    occurredAt: new Date(event.occurred_at).toISOString(),
    groupId: event.group_id,
    groupName: event.group_name,
    keyId: event.key_id,
    keyName: event.key_name,
    keyPrefix: event.key_prefix,
    keyKind: event.key_kind,
    provider: event.provider,
    model: event.model,
    endpoint: event.endpoint,
    route: event.route,
    statusCode: event.status_code,
    streamed: event.streamed,
    estimated: event.estimated,
    unpriced: event.cost_micros === null,
    inputTokens: Number(event.input_tokens),
    cachedReadTokens: Number(event.cached_read_tokens),
    cacheWriteTokens: Number(BigInt(event.cache_write_5m_tokens) + BigInt(event.cache_write_1h_tokens)),
    outputTokens: Number(event.output_tokens),
    reasoningTokens: Number(event.reasoning_tokens),
    totalTokens: Number(tokens.reduce((sum, count) => sum + count, 0n)),
    currency: 'GBP' as const,
    /** GBP counted on budgets; null when it could not be priced. */
    cost: event.budget_spend_micros === null ? null : microsToDecimalString(BigInt(event.budget_spend_micros)),
    costUsd: event.cost_micros === null ? null : microsToDecimalString(BigInt(event.cost_micros)),
    latencyMs: event.latency_ms,
  };
}

export function createRequestLog(deps: UsageDeps) {
  return {
    /** A page of requests matching the usage query, and the cursor of the next (null on the last). */
    async page(userId: string, query: UsageQuery & { status?: 'ok' | 'error' | undefined; cursor?: string | undefined; limit?: number | undefined }) {
      const scope = await usageScope(deps, userId, query);
      const limit = query.limit ?? REQUEST_LOG_PAGE.default;
      const { from, to } = scope.filter('day');
      const events = await requestLogPage(await deps.sql.readDb(userId), {
        teamId: scope.teamId,
        from,
        to,
        groupId: query.groupId,
        keyId: query.keyId,
        model: query.model,
        provider: query.provider,
        status: query.status,
        after: query.cursor === undefined ? undefined : readCursor(query.cursor),
        limit: limit + 1,
      });
      const page = events.slice(0, limit);
      return {
        teamId: scope.teamId,
        startDate: scope.startDate,
        endDate: scope.endDate,
        timeZone: scope.timeZone,
        items: page.map(entryOf),
        nextCursor: events.length > limit ? cursorAfter(page.at(-1)!) : null,
      };
    },

    /** One request with how it was billed; 404 unless the caller may see its group (its team's usage, for a call without a group). */
    async detail(userId: string, requestId: string) {
      const event = await findUsageEvent(deps.sql.db, requestId);
      if (event === undefined) throw new NotFoundError('Request');
      await deps.access.request(event, userId).catch(() => {
        throw new NotFoundError('Request');
      });
      return {
        ...entryOf(event),
        billingRule: event.billing_rule,
        billedCost: event.billed_micros === null ? null : microsToDecimalString(BigInt(event.billed_micros)),
        fxRatePpm: event.fx_rate_ppm === null ? null : event.fx_rate_ppm.toString(),
        priceVersion: event.price_version,
      };
    },
  };
}

export type RequestLog = ReturnType<typeof createRequestLog>;
