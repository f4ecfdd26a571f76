/**
 * The advisor's written wording, for a team that opts in on a run: each tip's templated
 * title and text rephrased by a model the team names, called through one of its own
 * connections with the gateway's provider adapters (the OpenAI chat request translated to
 * the provider's format, sent through the outbound guard). The answer is kept only when
 * it adds no number to the template's (core's acceptRewording): figures always come from
 * the detectors. Any failure keeps the template. The call is the team's own provider
 * spend, not metered as a gateway request.
 */
import { acceptRewording, NotFoundError, rewordingPrompt, ValidationError, type Wording } from '@spendgate/core';
import { type Envelope, findConnection, findTeamDataKey, type OutboundGuard, sharedLogger, type SqlStore } from '@spendgate/store';
import { request } from 'undici';
import { findProvider } from '../providers/registry.ts';
import { translatorFor } from '../providers/translation.ts';
import type { ConnectionOptions } from '../providers/types.ts';

const REWORD_TIMEOUT_MS = 15_000;
const REWORD_MAX_TOKENS = 400;

export interface WordingChoice {
  connectionId: string;
  model: string;
}

export function createAdvisorWording(deps: { sql: SqlStore; envelope: Envelope; outbound: Pick<OutboundGuard, 'dispatcher'> }) {
  const { db } = deps.sql;

  return {
    /** A writer for the team's chosen connection and model: 404 when the connection is not the team's. */
    async writer(teamId: string, choice: WordingChoice) {
      const connection = await findConnection(db, teamId, choice.connectionId);
      if (connection === undefined) throw new NotFoundError('Connection');
      const adapter = findProvider(connection.provider);
      const translator = adapter && adapter.format !== 'openai' ? translatorFor('openai', adapter.format, 'chat') : undefined;
      const target = { baseUrl: connection.base_url, model: choice.model, stream: false, options: connection.options as ConnectionOptions };
      const url = adapter?.url('chat', target);
      if (!adapter || !url || (adapter.format !== 'openai' && !translator)) {
        throw new ValidationError('wording.connectionId', `wording.connectionId: a ${connection.provider} connection cannot write tips`);
      }
      const dataKey = (await findTeamDataKey(db, teamId))!;
      const secret = deps.envelope.decryptSecret(
        dataKey.wrapped_key,
        { teamId, connectionId: connection.id, version: connection.secret_key_version },
        connection.secret_ciphertext,
      );

      /** The template reworded by the model, or the template when the call fails or its answer is refused. */
      return async (template: Wording): Promise<{ wording: Wording; written: boolean }> => {
        const prompt = rewordingPrompt(template);
        const chat = {
          model: choice.model,
          messages: [
            { role: 'system', content: prompt.system },
            { role: 'user', content: prompt.user },
          ],
          max_tokens: REWORD_MAX_TOKENS,
        };
        try {
          const native = adapter.prepareBody('chat', translator ? (translator.request(chat) as Record<string, unknown>) : chat, target);
          const response = await request(url, {
            dispatcher: deps.outbound.dispatcher,
            method: 'POST',
            headers: { ...adapter.authHeaders(secret), 'content-type': 'application/json' },
            body: JSON.stringify(native),
            headersTimeout: REWORD_TIMEOUT_MS,
            bodyTimeout: REWORD_TIMEOUT_MS,
            signal: AbortSignal.timeout(REWORD_TIMEOUT_MS),
          });
          const answer = (await response.body.json()) as unknown;
          if (response.statusCode >= 300) throw new Error(`${adapter.name} answered HTTP ${response.statusCode}`);
          const completion = (translator ? translator.response(answer, { requestedModel: choice.model }) : answer) as { choices?: { message?: { content?: unknown } }[] };
          const content = completion.choices?.[0]?.message?.content;
          const accepted = typeof content === 'string' ? acceptRewording(template, content) : undefined;
          return accepted ? { wording: accepted, written: true } : { wording: template, written: false };
        } catch (error) {
          sharedLogger().warn({ err: error instanceof Error ? error.message : String(error), provider: connection.provider }, 'advisor wording failed; the template is kept');
          return { wording: template, written: false };
        }
      };
    },
  };
}

export type AdvisorWording = ReturnType<typeof createAdvisorWording>;
