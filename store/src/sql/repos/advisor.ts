// The AI advisor's reads and writes: a team's usage over a window summed per key ×
// connection × provider × model (what the detectors take; also only the requests that
// repeated a body, and the output limits asked against the outputs seen), its live keys and connections
// with when each last served a request, the insights (recorded once per finding, so a
// finding found again is refreshed, never charged again), the spend on one subject
// around an applied change, and the team's wording setting.
import { type Insertable, sql } from 'kysely';
import type { AdvisorInsightsTable, TeamAdvisorWordingTable } from '../schema.ts';
import type { Db } from './db.ts';
import { usageConditions } from './usage-filter.ts';

/** What a generate run analyses: a team's events in [from, to), optionally only some groups or keys. */
export interface AdvisorScope {
  teamId: string;
  from: Date;
  to: Date;
  groupIds: readonly string[];
  keyIds: readonly string[];
}

const EXAMPLE_REQUESTS = 3;

function scopeConditions(scope: AdvisorScope) {
  return sql.join(
    [
      usageConditions({ teamId: scope.teamId, from: scope.from, to: scope.to }, 'e', 'occurred_at'),
      ...(scope.groupIds.length === 0 ? [] : [sql`e.group_id in (${sql.join(scope.groupIds)})`]),
      ...(scope.keyIds.length === 0 ? [] : [sql`e.key_id in (${sql.join(scope.keyIds)})`]),
    ],
    sql` and `,
  );
}

/** The scope's usage summed per key, connection, provider and model, with the newest request ids of each. */
export async function advisorUsageSlices(db: Db, scope: AdvisorScope) {
  const { rows } = await sql<SliceRow>`
    select e.key_id, k.name as key_name, e.key_kind, e.connection_id, e.provider, e.model,
      ${summedColumns}
    from usage_events e
    join issued_keys k on k.id = e.key_id and k.team_id = e.team_id
    where ${scopeConditions(scope)}
    group by e.key_id, k.name, e.key_kind, e.connection_id, e.provider, e.model
    order by e.key_id, e.provider, e.model, e.connection_id`.execute(db);
  return rows.map(sliceOf);
}

/** A summed slice's row: who, where, how many, the tokens, the newest request ids. */
interface SliceRow {
  key_id: string;
  key_name: string;
  key_kind: string;
  connection_id: string | null;
  provider: string;
  model: string;
  requests: string;
  input_tokens: string;
  cached_read_tokens: string;
  cache_write_5m_tokens: string;
  cache_write_1h_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  largest_output: string;
  requested_models: string[];
  example_request_ids: string[];
}

function sliceOf(row: SliceRow) {
  return {
    keyId: row.key_id,
    keyName: row.key_name,
    keyKind: row.key_kind,
    connectionId: row.connection_id,
    provider: row.provider,
    model: row.model,
    requestedModels: row.requested_models,
    requests: Number(row.requests),
    usage: {
      inputTokens: Number(row.input_tokens),
      cachedReadTokens: Number(row.cached_read_tokens),
      cacheWrite5mTokens: Number(row.cache_write_5m_tokens),
      cacheWrite1hTokens: Number(row.cache_write_1h_tokens),
      outputTokens: Number(row.output_tokens),
      reasoningTokens: Number(row.reasoning_tokens),
    },
    largestOutputTokens: Number(row.largest_output),
    exampleRequestIds: row.example_request_ids,
  };
}

/**
 * A slice's summed columns, over the events aliased `e`: with its longest answer, and the
 * models callers asked for (the served model on events from before those were recorded).
 */
const summedColumns = sql`
  count(*)::text as requests,
  sum(e.input_tokens)::text as input_tokens,
  sum(e.cached_read_tokens)::text as cached_read_tokens,
  sum(e.cache_write_5m_tokens)::text as cache_write_5m_tokens,
  sum(e.cache_write_1h_tokens)::text as cache_write_1h_tokens,
  sum(e.output_tokens)::text as output_tokens,
  sum(e.reasoning_tokens)::text as reasoning_tokens,
  max(e.output_tokens)::text as largest_output,
  array_agg(distinct coalesce(e.requested_model, e.model)) as requested_models,
  (array_agg(e.request_id order by e.occurred_at desc, e.request_id desc))[1:${sql.lit(EXAMPLE_REQUESTS)}] as example_request_ids`;

/**
 * The scope's answered requests that repeated a body their key had sent before in the
 * window (same body fingerprint), summed per key, connection, provider and model: each body's
 * first send is left out, so the sums are the repeats'.
 */
export async function advisorRepeatSlices(db: Db, scope: AdvisorScope) {
  const { rows } = await sql<SliceRow & { repeated_bodies: string }>`
    with sent as (
      select e.*, row_number() over (partition by e.key_id, e.body_hmac order by e.occurred_at, e.request_id) as send
      from usage_events e
      where ${scopeConditions(scope)} and e.body_hmac is not null and e.status_code < 400
    )
    select e.key_id, k.name as key_name, e.key_kind, e.connection_id, e.provider, e.model,
      ${summedColumns},
      count(distinct e.body_hmac)::text as repeated_bodies
    from sent e
    join issued_keys k on k.id = e.key_id and k.team_id = e.team_id
    where e.send > 1
    group by e.key_id, k.name, e.key_kind, e.connection_id, e.provider, e.model
    order by e.key_id, e.provider, e.model, e.connection_id`.execute(db);
  return rows.map((row) => ({ ...sliceOf(row), repeatedBodies: Number(row.repeated_bodies) }));
}

/** The scope's answered requests that asked for an output limit, per key, connection, provider and model: the limits asked and the longest answer. */
export async function advisorOutputLimitSlices(db: Db, scope: AdvisorScope) {
  const { rows } = await sql<SliceRow & { smallest_requested: number; largest_requested: number }>`
    select e.key_id, k.name as key_name, e.key_kind, e.connection_id, e.provider, e.model,
      ${summedColumns},
      min(e.requested_output_tokens) as smallest_requested,
      max(e.requested_output_tokens) as largest_requested
    from usage_events e
    join issued_keys k on k.id = e.key_id and k.team_id = e.team_id
    where ${scopeConditions(scope)} and e.requested_output_tokens is not null and e.status_code < 400
    group by e.key_id, k.name, e.key_kind, e.connection_id, e.provider, e.model
    order by e.key_id, e.provider, e.model, e.connection_id`.execute(db);
  return rows.map((row) => ({
    ...sliceOf(row),
    smallestRequestedOutputTokens: Number(row.smallest_requested),
    largestRequestedOutputTokens: Number(row.largest_requested),
  }));
}

const lastUsed = (value: Date | string | null) => (value === null ? null : new Date(value));

/** The team's live keys (only those of the scope's groups or keys, when it names some), each with its newest request. */
export async function advisorKeys(db: Db, scope: Pick<AdvisorScope, 'teamId' | 'groupIds' | 'keyIds'>) {
  let query = db
    .selectFrom('issued_keys as k')
    .select(['k.id', 'k.name', 'k.kind', 'k.connection_id', 'k.created_at'])
    .select((eb) =>
      eb
        .selectFrom('usage_events as e')
        .select((events) => events.fn.max('e.occurred_at').as('occurred_at'))
        .whereRef('e.team_id', '=', 'k.team_id')
        .whereRef('e.key_id', '=', 'k.id')
        .as('last_used_at'),
    )
    .where('k.team_id', '=', scope.teamId)
    .where('k.revoked_at', 'is', null);
  if (scope.groupIds.length > 0) query = query.where('k.group_id', 'in', scope.groupIds);
  if (scope.keyIds.length > 0) query = query.where('k.id', 'in', scope.keyIds);
  const keys = await query.orderBy('k.created_at').orderBy('k.id').execute();
  return keys.map((key) => ({
    id: key.id,
    name: key.name,
    kind: key.kind,
    connectionId: key.connection_id,
    createdAt: new Date(key.created_at),
    lastUsedAt: lastUsed(key.last_used_at),
  }));
}

/** The team's connections, each with its newest request. */
export async function advisorConnections(db: Db, teamId: string) {
  const connections = await db
    .selectFrom('provider_connections as c')
    .select(['c.id', 'c.name', 'c.provider', 'c.created_at'])
    .select((eb) =>
      eb
        .selectFrom('usage_events as e')
        .select((events) => events.fn.max('e.occurred_at').as('occurred_at'))
        .whereRef('e.team_id', '=', 'c.team_id')
        .whereRef('e.connection_id', '=', 'c.id')
        .as('last_used_at'),
    )
    .where('c.team_id', '=', teamId)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute();
  return connections.map((connection) => ({
    id: connection.id,
    name: connection.name,
    provider: connection.provider,
    createdAt: new Date(connection.created_at),
    lastUsedAt: lastUsed(connection.last_used_at),
  }));
}

/** The fields a finding found again refreshes (never its price or when it was first found). */
type RefreshedInsight = Pick<
  Insertable<AdvisorInsightsTable>,
  'title' | 'text' | 'evidence' | 'change' | 'confidence' | 'current_cost_micros' | 'counterfactual_cost_micros' | 'monthly_saving_micros' | 'window_start' | 'window_end'
>;

/**
 * Records a finding: inserted (and so charged) only if the team has no insight with its
 * fingerprint — the unique (team, fingerprint) settles concurrent runs, one inserting and
 * the others refreshing — else refreshed. Answers the row and whether it is new.
 */
export async function recordInsight(db: Db, insight: Insertable<AdvisorInsightsTable>) {
  const inserted = await db
    .insertInto('advisor_insights')
    .values(insight)
    .onConflict((conflict) => conflict.columns(['team_id', 'fingerprint']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { insight: inserted, created: true };
  const refreshed: RefreshedInsight = {
    title: insight.title,
    text: insight.text,
    evidence: insight.evidence,
    change: insight.change,
    confidence: insight.confidence,
    current_cost_micros: insight.current_cost_micros,
    counterfactual_cost_micros: insight.counterfactual_cost_micros,
    monthly_saving_micros: insight.monthly_saving_micros,
    window_start: insight.window_start,
    window_end: insight.window_end,
  };
  const updated = await db
    .updateTable('advisor_insights')
    .set({ ...refreshed, refreshed_at: new Date() })
    .where('team_id', '=', insight.team_id)
    .where('fingerprint', '=', insight.fingerprint)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { insight: updated, created: false };
}

/** A team's insights, largest monthly saving first. */
export async function listInsights(db: Db, teamId: string) {
  return db
    .selectFrom('advisor_insights')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('monthly_saving_micros', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** An insight by id, of whichever team: the caller checks it may see that team. */
export async function findInsightById(db: Db, id: string) {
  return db.selectFrom('advisor_insights').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks an insight applied, once: undefined when it was already applied. */
export async function markInsightApplied(db: Db, teamId: string, id: string, userId: string, at: Date) {
  return db
    .updateTable('advisor_insights')
    .set({ applied_at: at, applied_by: userId })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('applied_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** GBP micros a team's key (or connection), narrowed to a provider and model, counted on budgets in [from, to). */
export async function subjectSpend(
  db: Db,
  subject: { teamId: string; keyId: string | null; connectionId: string | null; provider: string | null; model: string | null },
  from: Date,
  to: Date,
) {
  const filter = {
    teamId: subject.teamId,
    from,
    to,
    ...(subject.keyId !== null && { keyId: subject.keyId }),
    ...(subject.connectionId !== null && { connectionId: subject.connectionId }),
    ...(subject.provider !== null && { provider: subject.provider }),
    ...(subject.model !== null && { model: subject.model }),
  };
  const { rows } = await sql<{ spend: string }>`
    select coalesce(sum(e.budget_spend_micros), 0)::text as spend from usage_events e where ${usageConditions(filter, 'e', 'occurred_at')}`.execute(db);
  return BigInt(rows[0]!.spend);
}

/** The team's wording setting, or undefined when it never set one (off). */
export async function findAdvisorWording(db: Db, teamId: string) {
  return db.selectFrom('team_advisor_wording').selectAll().where('team_id', '=', teamId).executeTakeFirst();
}

/** Sets the team's wording setting, made or replaced. */
export async function saveAdvisorWording(db: Db, setting: Omit<Insertable<TeamAdvisorWordingTable>, 'updated_at'> & { updated_at: Date }) {
  const { team_id: _team, ...changes } = setting;
  return db
    .insertInto('team_advisor_wording')
    .values(setting)
    .onConflict((conflict) => conflict.column('team_id').doUpdateSet(changes))
    .returningAll()
    .executeTakeFirstOrThrow();
}
