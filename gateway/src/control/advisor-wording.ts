/**
 * The advisor's written wording, a team setting (off by default; team admins change it,
 * audited): a model rewords each tip's templated title and text, called through one of the
 * team's connections or the operator's upstream for optimised keys, with the gateway's
 * provider adapters (the OpenAI chat request translated to the provider's format). The answer
 * is kept only when it adds no number to the template's (core's acceptRewording): figures
 * always come from the detectors, and any failure keeps the template.
 *
 * Each call a provider answers is the team's usage: an event of its own (route
 * `advisor-wording`, the team's alone: no group or key), priced by core's pricing as a
 * request of that connection's kind (BYOK or BYOM) or of an optimised key would be, counted on
 * the team's budgets, and listed in its request log.
 */
import { randomUUID } from 'node:crypto';
import {
  ADVISOR_WORDING_ROUTE,
  acceptRewording,
  emptyUsage,
  type KeyKind,
  NotFoundError,
  type PriceCatalog,
  priceRequest,
  rewordingPrompt,
  type Usage,
  ValidationError,
  type Wording,
} from '@spendgate/core';
import {
  budgetCounter,
  type Config,
  type Envelope,
  findAdvisorWording,
  findConnection,
  findTeam,
  findTeamDataKey,
  insertUsageEvents,
  isDemoTeam,
  listBudgets,
  type OutboundGuard,
  saveAdvisorWording,
  type SpendLedger,
  sharedLogger,
  type SqlStore,
  writeAudit,
} from '@spendgate/store';
import { type Dispatcher, request } from 'undici';
import { wireFormats } from '../providers/formats/index.ts';
import { operatorAccountFor, operatorAccounts, operatorAgent } from '../providers/operator-upstreams.ts';
import { findProvider } from '../providers/registry.ts';
import { translatorFor } from '../providers/translation.ts';
import type { ConnectionOptions, ProviderAdapter } from '../providers/types.ts';
import { catalogFor, loadTeamPrices } from '../team-prices.ts';
import type { Access } from './access.ts';
import type { PlanService } from './plans.ts';

const REWORD_TIMEOUT_MS = 15_000;
const REWORD_MAX_TOKENS = 400;
/** The model a team that never chose one is offered. */
export const DEFAULT_WORDING_MODEL = 'gpt-4o-mini';

/** What a team admin sets. */
export interface WordingSetting {
  enabled: boolean;
  /** connection: one of the team's connections; operator: the operator's upstream for optimised keys. */
  source: 'connection' | 'operator';
  connectionId: string | null;
  model: string;
}

/** Where the wording calls go, and how they are priced. */
interface WordingTarget {
  adapter: ProviderAdapter;
  baseUrl: string;
  options: ConnectionOptions;
  secret: string;
  dispatcher: Dispatcher;
  connectionId: string | null;
  kind: KeyKind;
}

/** Rewords one tip: the model's wording, or the template when the call fails or its answer is refused. */
export type TipWriter = (template: Wording) => Promise<{ wording: Wording; written: boolean }>;

export function createAdvisorWording(deps: {
  sql: SqlStore;
  access: Access;
  plans: Pick<PlanService, 'teamTerms'>;
  envelope: Envelope;
  outbound: Pick<OutboundGuard, 'dispatcher'>;
  ledger: Pick<SpendLedger, 'spend'>;
  catalog: PriceCatalog;
  config: Pick<Config, 'optimisedUpstreams'>;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  const accounts = operatorAccounts(deps.config.optimisedUpstreams);

  /** The target of a setting: 404 for a connection not the team's, 400 naming the field the provider or the operator cannot serve. */
  async function targetOf(teamId: string, setting: Pick<WordingSetting, 'source' | 'connectionId' | 'model'>): Promise<WordingTarget> {
    if (setting.source === 'operator') {
      if (await isDemoTeam(db, teamId)) throw new ValidationError('source', "source: a demo team is never billed, so its tips cannot be written through the operator's upstream; choose one of its connections");
      const account = operatorAccountFor(accounts, deps.catalog, setting.model, now());
      if (account === undefined) throw new ValidationError('model', `model: the operator's upstream does not serve ${setting.model}`);
      return { ...account, dispatcher: operatorAgent, connectionId: null, kind: 'optimised' };
    }
    if (setting.connectionId === null) throw new ValidationError('connectionId', 'connectionId: choose one of your connections, or the operator’s upstream');
    const connection = await findConnection(db, teamId, setting.connectionId);
    if (connection === undefined) throw new NotFoundError('Connection');
    const adapter = findProvider(connection.provider);
    const target = { baseUrl: connection.base_url, model: setting.model, stream: false, options: connection.options as ConnectionOptions };
    if (!adapter?.url('chat', target) || (adapter.format !== 'openai' && !translatorFor('openai', adapter.format, 'chat'))) {
      throw new ValidationError('connectionId', `connectionId: a ${connection.provider} connection cannot write tips`);
    }
    const dataKey = (await findTeamDataKey(db, teamId))!;
    const secret = deps.envelope.decryptSecret(dataKey.wrapped_key, { teamId, connectionId: connection.id, version: connection.secret_key_version }, connection.secret_ciphertext);
    return { adapter, baseUrl: connection.base_url, options: target.options, secret, dispatcher: deps.outbound.dispatcher, connectionId: connection.id, kind: adapter.selfHosted ? 'byom' : 'byok' };
  }

  async function view(teamId: string) {
    const row = await findAdvisorWording(db, teamId);
    return {
      teamId,
      enabled: row?.enabled ?? false,
      source: row?.source ?? ('connection' as const),
      connectionId: row?.connection_id ?? null,
      model: row?.model ?? DEFAULT_WORDING_MODEL,
      /** Whether the operator has upstreams for optimised keys that wording could go through. */
      operatorAvailable: accounts.length > 0,
      updatedAt: row?.updated_at ?? null,
    };
  }

  /** Records one wording call as the team's usage, and counts its spend on the team's budgets. */
  async function recordCall(teamId: string, call: { target: WordingTarget; model: string; usage: Usage; statusCode: number; startedAt: Date }) {
    const { target, model, usage, startedAt } = call;
    const [{ terms }, teamPrices] = await Promise.all([deps.plans.teamTerms(teamId), loadTeamPrices(deps.sql, teamId)]);
    const provider = target.adapter.catalogProvider;
    const priced = priceRequest(catalogFor(teamPrices, deps.catalog, provider, model, startedAt), { kind: target.kind, plan: terms, provider, model, usage, at: startedAt });
    const requestId = randomUUID();
    await insertUsageEvents(db, [
      {
        request_id: requestId,
        occurred_at: startedAt,
        team_id: teamId,
        group_id: null,
        key_id: null,
        connection_id: target.connectionId,
        provider,
        model,
        endpoint: 'chat.completions',
        status_code: call.statusCode,
        streamed: false,
        estimated: false,
        input_tokens: BigInt(usage.inputTokens),
        cached_read_tokens: BigInt(usage.cachedReadTokens),
        cache_write_5m_tokens: BigInt(usage.cacheWrite5mTokens),
        cache_write_1h_tokens: BigInt(usage.cacheWrite1hTokens),
        output_tokens: BigInt(usage.outputTokens),
        reasoning_tokens: BigInt(usage.reasoningTokens),
        cost_micros: priced.cost.status === 'priced' ? priced.cost.totalMicros : null,
        currency: 'USD',
        price_version: priced.cost.status === 'priced' ? priced.cost.priceVersion : null,
        latency_ms: now().getTime() - startedAt.getTime(),
        key_kind: target.kind,
        billed_micros: priced.bill.billedMicros,
        billed_currency: 'GBP',
        fx_rate_ppm: priced.bill.fxRatePpm,
        billing_rule: priced.bill.rule,
        budget_spend_micros: priced.budgetSpendMicros,
        route: ADVISOR_WORDING_ROUTE,
        requested_output_tokens: REWORD_MAX_TOKENS,
      },
    ]);
    // After the event is written: a team budget's counter not started yet is seeded from the events, this one included.
    const team = await findTeam(db, teamId);
    const counters = (await listBudgets(db, teamId, { scope: 'team' })).map((budget) =>
      budgetCounter(deps.sql, teamId, team?.time_zone ?? 'UTC', { id: budget.id, scope: budget.scope, scopeId: budget.scope_id, amountMicros: budget.amount_micros, window: budget.window, mode: budget.mode }, startedAt),
    );
    if (counters.length > 0) await deps.ledger.spend(requestId, counters.map((counter) => ({ scope: counter.scope, limitMicros: null, seed: counter.seed })), priced.budgetSpendMicros);
  }

  return {
    /** The team's wording setting (its admins). */
    async settings(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.usage.view');
      return view(teamId);
    },

    /** Sets the team's wording (team admins, audited); turned on, its connection or the operator's upstream must serve it. */
    async update(userId: string, teamId: string, setting: WordingSetting) {
      await deps.access.team(teamId, userId, 'team.settings.manage');
      if (setting.enabled) await targetOf(teamId, setting);
      const connectionId = setting.source === 'connection' ? setting.connectionId : null;
      if (!setting.enabled && connectionId !== null && (await findConnection(db, teamId, connectionId)) === undefined) throw new NotFoundError('Connection');
      await db.transaction().execute(async (trx) => {
        await saveAdvisorWording(trx, { team_id: teamId, enabled: setting.enabled, source: setting.source, connection_id: connectionId, model: setting.model, updated_by: userId, updated_at: now() });
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'advisor.wording_updated',
          targetType: 'team',
          targetId: teamId,
          details: { enabled: setting.enabled, source: setting.source, connectionId, model: setting.model },
        });
      });
      return view(teamId);
    },

    /**
     * A writer for the team's setting, or undefined when it is off or can no longer be served
     * (its connection deleted, the model gone from the operator's upstream): the templates.
     */
    async writer(teamId: string): Promise<TipWriter | undefined> {
      const setting = await findAdvisorWording(db, teamId);
      if (!setting?.enabled) return undefined;
      const target = await targetOf(teamId, { source: setting.source, connectionId: setting.connection_id, model: setting.model }).catch((error: unknown) => {
        sharedLogger().warn({ err: error instanceof Error ? error.message : String(error), teamId }, 'advisor wording cannot be served; the templates are kept');
        return undefined;
      });
      if (target === undefined) return undefined;
      const { adapter } = target;
      const translator = adapter.format === 'openai' ? undefined : translatorFor('openai', adapter.format, 'chat');
      const upstream = { baseUrl: target.baseUrl, model: setting.model, stream: false, options: target.options };
      const url = adapter.url('chat', upstream)!;

      return async (template) => {
        const prompt = rewordingPrompt(template);
        const chat = {
          model: setting.model,
          messages: [
            { role: 'system', content: prompt.system },
            { role: 'user', content: prompt.user },
          ],
          max_tokens: REWORD_MAX_TOKENS,
        };
        const startedAt = now();
        try {
          const native = adapter.prepareBody('chat', translator ? (translator.request(chat) as Record<string, unknown>) : chat, upstream);
          const response = await request(url, {
            dispatcher: target.dispatcher,
            method: 'POST',
            headers: { ...adapter.authHeaders(target.secret), 'content-type': 'application/json' },
            body: JSON.stringify(native),
            headersTimeout: REWORD_TIMEOUT_MS,
            bodyTimeout: REWORD_TIMEOUT_MS,
            signal: AbortSignal.timeout(REWORD_TIMEOUT_MS),
          });
          const answer = (await response.body.json()) as unknown;
          const answered = response.statusCode < 400;
          const completion = (answered && translator ? translator.response(answer, { requestedModel: setting.model }) : answer) as {
            model?: unknown;
            choices?: { message?: { content?: unknown } }[];
          };
          const model = answered && typeof completion.model === 'string' ? completion.model : setting.model;
          const usage = (answered ? wireFormats[adapter.format].usageFromAnswer('chat', answer) : undefined) ?? emptyUsage();
          await recordCall(teamId, { target, model, usage, statusCode: response.statusCode, startedAt });
          if (!answered) throw new Error(`${adapter.name} answered HTTP ${response.statusCode}`);
          const content = completion.choices?.[0]?.message?.content;
          const accepted = typeof content === 'string' ? acceptRewording(template, content) : undefined;
          return accepted ? { wording: accepted, written: true } : { wording: template, written: false };
        } catch (error) {
          sharedLogger().warn({ err: error instanceof Error ? error.message : String(error), provider: adapter.id }, 'advisor wording failed; the template is kept');
          return { wording: template, written: false };
        }
      };
    },
  };
}

export type AdvisorWording = ReturnType<typeof createAdvisorWording>;
