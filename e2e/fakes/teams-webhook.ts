/**
 * A fake Microsoft Teams Workflows webhook ("When a Teams webhook request is received"),
 * as Microsoft documents it: a JSON POST of a `message` whose `attachments` hold Adaptive
 * Cards (`contentType: application/vnd.microsoft.card.adaptive`, `content.type:
 * AdaptiveCard`, a `version`, a `body` of elements each with a `type`); `202 Accepted`
 * with an empty body. A URL without the workflow's `sig` answers 401, a body the flow
 * cannot read 400, in the platform's JSON error shape. `x-fake-status` forces a status.
 */
import { FakeHttpError, type FakeProvider, isJsonObject, type RecordedRequest, startFakeProviderServer } from './fake-provider-kit.ts';

export interface AdaptiveCard {
  type: string;
  version: string;
  body: { type: string; text?: string }[];
}

export interface FakeTeamsWebhook extends FakeProvider {
  webhookUrl: string;
  /** The cards of the messages accepted. */
  cards: AdaptiveCard[];
}

const WORKFLOW_PATH = '/workflows/0fake0000000000000000000000000001/triggers/manual/paths/invoke';
const SIGNATURE = 'fakeSignature0001';

const error = (status: number, code: string, message: string) => new FakeHttpError(status, { error: { code, message } });

function cardProblem(attachment: unknown): string | undefined {
  if (!isJsonObject(attachment)) return 'each attachment must be an object';
  if (attachment.contentType !== 'application/vnd.microsoft.card.adaptive') return 'attachment contentType must be application/vnd.microsoft.card.adaptive';
  const card = attachment.content;
  if (!isJsonObject(card) || card.type !== 'AdaptiveCard') return 'attachment content must be an AdaptiveCard';
  if (typeof card.version !== 'string' || !/^1\.\d$/.test(card.version)) return 'AdaptiveCard version must be 1.x';
  if (!Array.isArray(card.body) || !card.body.every((element) => isJsonObject(element) && typeof element.type === 'string')) return 'AdaptiveCard body must be a list of elements with a type';
  return undefined;
}

export async function startFakeTeamsWebhook(): Promise<FakeTeamsWebhook> {
  const cards: AdaptiveCard[] = [];
  const fake = await startFakeProviderServer({
    answer(request: RecordedRequest, res) {
      const forced = Number(request.headers['x-fake-status']);
      if (forced) throw error(forced, 'FakeFailure', 'fake failure');
      const url = new URL(request.path, 'http://fake');
      if (request.method !== 'POST' || url.pathname !== WORKFLOW_PATH) throw error(404, 'WorkflowNotFound', 'The workflow could not be found.');
      if (url.searchParams.get('sig') !== SIGNATURE) throw error(401, 'DirectApiAuthorizationRequired', 'The request must be authenticated by a valid SAS signature.');
      const body = request.body;
      if (!isJsonObject(body)) throw error(400, 'InvalidRequestContent', 'The request content is not valid JSON.');
      if (body.type !== 'message' || !Array.isArray(body.attachments) || body.attachments.length === 0) throw error(400, 'InvalidRequestContent', 'The body must be a message with attachments.');
      const problem = body.attachments.map(cardProblem).find(Boolean);
      if (problem) throw error(400, 'InvalidRequestContent', problem);
      for (const attachment of body.attachments as { content: AdaptiveCard }[]) cards.push(attachment.content);
      res.writeHead(202);
      res.end();
    },
    internalError: (message) => error(500, 'InternalServerError', message),
  });
  return Object.assign(fake, { webhookUrl: `${fake.url}${WORKFLOW_PATH}?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${SIGNATURE}`, cards });
}
