/**
 * A fake Slack incoming webhook (https://hooks.slack.com/services/T…/B…/secret), as Slack
 * documents it: a JSON POST with `text` and/or Block Kit `blocks`; `200 ok` in plain text;
 * errors in plain text too — 400 `invalid_payload` (not JSON), `no_text` (neither text nor
 * blocks), `invalid_blocks` (a block Slack would refuse: an unknown type, a header over 150
 * characters or not plain_text, a section text over 3,000), 403 `invalid_token`, 404 `no_service`.
 * `x-fake-status` answers that status instead (e.g. 500 to make a delivery retry).
 */
import type { ServerResponse } from 'node:http';
import { FakeHttpError, type FakeProvider, type RecordedRequest, startFakeProviderServer } from './fake-provider-kit.ts';

export interface FakeSlackWebhook extends FakeProvider {
  /** The webhook URL the fake accepts. */
  webhookUrl: string;
  /** Bodies of the messages it accepted. */
  posted: { text?: string; blocks?: SlackBlock[] }[];
}

interface SlackText {
  type: string;
  text: string;
}
interface SlackBlock {
  type: string;
  text?: SlackText;
  elements?: SlackText[];
}

const WEBHOOK_PATH = '/services/T0FAKE0001/B0FAKE0001/fakeWebhookSecret0001';
const BLOCK_TYPES = new Set(['section', 'header', 'context', 'divider', 'actions', 'image', 'rich_text']);
const TEXT_TYPES = new Set(['plain_text', 'mrkdwn']);

function plain(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

function blockProblem(block: SlackBlock): boolean {
  if (!block || typeof block !== 'object' || !BLOCK_TYPES.has(block.type)) return true;
  const textOk = (text: SlackText | undefined) => !!text && TEXT_TYPES.has(text.type) && typeof text.text === 'string' && text.text.length > 0;
  if (block.type === 'header') return !textOk(block.text) || block.text!.type !== 'plain_text' || block.text!.text.length > 150;
  if (block.type === 'section') return !textOk(block.text) || block.text!.text.length > 3000;
  if (block.type === 'context') return !Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10 || !block.elements.every(textOk);
  return false;
}

export async function startFakeSlackWebhook(): Promise<FakeSlackWebhook> {
  const posted: FakeSlackWebhook['posted'] = [];
  const fake = await startFakeProviderServer({
    answer(request: RecordedRequest, res) {
      const forced = Number(request.headers['x-fake-status']);
      if (forced) return plain(res, forced, 'fake failure');
      const path = request.path.split('?')[0]!;
      if (request.method !== 'POST' || !path.startsWith('/services/')) return plain(res, 404, 'no_service');
      if (path !== WEBHOOK_PATH) return plain(res, 403, 'invalid_token');
      const body = request.body as { text?: unknown; blocks?: unknown } | string | undefined;
      if (!String(request.headers['content-type'] ?? '').startsWith('application/json') || typeof body !== 'object' || body === null) return plain(res, 400, 'invalid_payload');
      if (body.blocks === undefined && (typeof body.text !== 'string' || body.text === '')) return plain(res, 400, 'no_text');
      if (body.blocks !== undefined && (!Array.isArray(body.blocks) || body.blocks.length > 50 || body.blocks.some(blockProblem))) return plain(res, 400, 'invalid_blocks');
      posted.push(body as FakeSlackWebhook['posted'][number]);
      plain(res, 200, 'ok');
    },
    internalError: (message) => new FakeHttpError(500, message),
  });
  return Object.assign(fake, { webhookUrl: `${fake.url}${WEBHOOK_PATH}`, posted });
}
