/**
 * /dashboard/requests/$requestId: one request of the log — when, which key and group,
 * model and route, status, tokens by category, cost in GBP (and the USD list price),
 * billing — and, when its team and group captured it, the prompt and the answer as they
 * were stored (redacted; each view is in the team's audit log). A request not captured
 * says why there is nothing to show.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { promptCaptureQuery, requestDetailQuery } from '../../api/requests/queries.ts';
import type { CapturedText, PromptCapture, RequestDetail } from '../../api/requests/types.ts';
import { countText } from '../connections/format.ts';
import { amountText } from '../overview/filters.ts';
import { senderOf } from '../overview/RequestLog.tsx';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import '../../styles/settings.css';
import '../../styles/requests.css';

const TITLE = 'Request';
const DESCRIPTION = 'One request: what it used, what it cost and, when captured, its prompt and answer.';

const timeText = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

/** A captured body as people read it: JSON indented when it is whole JSON, else as stored. */
function readable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function costText(detail: RequestDetail): string {
  if (detail.unpriced || detail.cost === null) return 'Unpriced (no price known for this model)';
  return detail.costUsd === null ? amountText(detail.cost, 'GBP') : `${amountText(detail.cost, 'GBP')} (list price ${amountText(detail.costUsd, 'USD')})`;
}

function Facts({ detail }: { detail: RequestDetail }) {
  const rows: [string, string][] = [
    ['Time', timeText(detail.occurredAt)],
    ['Group', senderOf(detail).group],
    ['Key', detail.keyName ? `${detail.keyName} (${detail.keyPrefix ?? ''}…, ${detail.keyKind})` : senderOf(detail).key],
    ['Model', `${detail.model} (${detail.provider})`],
    ['Route', detail.route ?? 'requested'],
    ['Endpoint', `${detail.endpoint}${detail.streamed ? ', streamed' : ''}`],
    ['Status', String(detail.statusCode)],
    ['Latency', `${countText(detail.latencyMs)} ms`],
    [
      'Tokens',
      `${countText(detail.totalTokens)} in all: ${countText(detail.inputTokens)} input, ${countText(detail.cachedReadTokens)} cached, ` +
        `${countText(detail.cacheWriteTokens)} cache writes, ${countText(detail.outputTokens)} output (${countText(detail.reasoningTokens)} reasoning)` +
        (detail.estimated ? ' — estimated' : ''),
    ],
    ['Cost', costText(detail)],
    ['Billed', detail.billedCost === null ? 'Not known' : `${amountText(detail.billedCost, 'GBP')} (${detail.billingRule ?? 'no rule'})`],
    ['Price version', detail.priceVersion ?? 'None'],
  ];
  return (
    <section className="settings-panel" aria-labelledby="request-facts-title">
      <h2 id="request-facts-title" className="settings-panel__title">
        Usage and cost
      </h2>
      <dl className="request-facts">
        {rows.map(([term, value]) => (
          <div key={term} className="request-facts__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Body({ id, title, body, note }: { id: string; title: string; body: CapturedText; note?: string }) {
  return (
    <section className="request-body" aria-labelledby={id}>
      <h3 id={id} className="request-body__title">
        {title}
      </h3>
      <p className="settings-panel__text">
        {countText(body.bytes)} bytes{body.truncated ? ', cut to the first 64 KiB' : ''}
        {note ? `, ${note}` : ''}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the keyboard's focus to be scrolled. */}
      <pre className="request-body__text" tabIndex={0}>
        {readable(body.text)}
      </pre>
    </section>
  );
}

function Capture({ capture }: { capture: PromptCapture }) {
  if (!capture.captured) {
    return (
      <section className="settings-panel" aria-labelledby="request-capture-title">
        <h2 id="request-capture-title" className="settings-panel__title">
          Prompt and answer
        </h2>
        <p className="settings-panel__text">
          Not captured: prompt capture was off for this request's team or group, or the capture has passed its retention. A team admin can turn
          capture on in <Link to="/dashboard/settings/team">Team settings</Link>.
        </p>
      </section>
    );
  }
  return (
    <section className="settings-panel" aria-labelledby="request-capture-title">
      <h2 id="request-capture-title" className="settings-panel__title">
        Prompt and answer
      </h2>
      <p className="settings-panel__text">
        Captured {timeText(capture.capturedAt)}, kept until {timeText(capture.expiresAt)}. {countText(capture.redactions)} secret
        {capture.redactions === 1 ? '' : 's'} and personal detail{capture.redactions === 1 ? '' : 's'} redacted before storage. Your view is recorded
        in the team's audit log.
      </p>
      <Body id="request-prompt" title="Request body" body={capture.request} />
      <Body id="request-answer" title="Answer" body={capture.response} note={capture.response.streamed ? 'the streamed text assembled' : 'as the provider sent it'} />
    </section>
  );
}

export function RequestDetailScreen() {
  const { requestId = '' } = useParams({ strict: false }) as { requestId?: string };
  const detail = useQuery(requestDetailQuery(requestId));
  const capture = useQuery({ ...promptCaptureQuery(requestId), enabled: detail.isSuccess });
  const back = (
    <Link className="button button--ghost" to="/dashboard">
      Back to the overview
    </Link>
  );

  if (detail.isPending) {
    return (
      <ScreenFrame title={TITLE} description={DESCRIPTION} actions={back}>
        <LoadingState label="Loading the request…" />
      </ScreenFrame>
    );
  }
  if (detail.isError) {
    return (
      <ScreenFrame title={TITLE} description={DESCRIPTION} actions={back}>
        <ErrorState error={detail.error} onRetry={() => detail.refetch()} retrying={detail.isRefetching} />
      </ScreenFrame>
    );
  }
  return (
    <ScreenFrame title={`${TITLE} ${requestId.slice(0, 8)}`} description={DESCRIPTION} actions={back}>
      <div className="settings-stack">
        <Facts detail={detail.data} />
        {capture.isPending ? (
          <LoadingState label="Loading the prompt…" />
        ) : capture.isError ? (
          <ErrorState error={capture.error} onRetry={() => capture.refetch()} retrying={capture.isRefetching} />
        ) : (
          <Capture capture={capture.data} />
        )}
      </div>
    </ScreenFrame>
  );
}
