/**
 * /dashboard/advisor: the AI advisor's tips on the team's own usage. Each tip shows what
 * was found and its evidence (requests, example request ids, the days analysed), the
 * estimated monthly saving beside the saving realised once applied, a confidence, what the
 * tip was charged, and its change: "Apply" revokes an idle key or changes a key's settings
 * (a model override, an output cap) in one click and says what it did; a manual change is
 * marked made (its realised saving is measured from then). "Generate tips"
 * analyses the team's last 30 days; each new finding is charged the plan's price once
 * (a demo team's are free, and the screen says so instead of a charge).
 * Below the tips, the team's wording setting (AdvisorWordingSettings): off, or a model that
 * words the tips through a connection or Spendgate's upstream; the figures stay the detectors'.
 * The team shown is the URL's `team`, else the user's first. Team admins only.
 */
import { decide, decimalToMicros, formatMoney, type IdlePeriod, money, } from '@spendgate/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { applyTipMutation, generateTipsMutation } from '../../api/advisor/mutations.ts';
import { advisorInsightsQuery } from '../../api/advisor/queries.ts';
import type { AdvisorChange, AdvisorInsight } from '../../api/advisor/types.ts';
import { countText } from '../connections/format.ts';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { TeamStates, useTeamFromSearch } from '../ui/TeamFromSearch.tsx';
import { AdvisorWordingSettings } from './AdvisorWordingSettings.tsx';
import './advisor.css';
import { Badge } from '../ui/Badge.tsx';

const gbp = (amount: string) => formatMoney(money(decimalToMicros(amount) ?? 0n, 'GBP'));

const CONFIDENCE_LABELS: Record<AdvisorInsight['confidence'], string> = { high: 'High confidence', medium: 'Medium confidence', low: 'Low confidence' };

/** A change as its tip shows it: the Apply button's label, the change itself, and what applying it did. */
function changeTexts(change: AdvisorChange): { apply: string; text: string; done: string } {
  switch (change.action) {
    case 'revoke-key':
      return { apply: 'Apply: revoke the key', text: 'revoke the idle key (its applications stop working)', done: 'Applied: the key is revoked.' };
    case 'key-setting':
      return {
        apply: 'Apply: change the key’s settings',
        text: change.description,
        done: `Applied: ${change.description}. Gateways apply it to the next request.`,
      };
    case 'manual':
      return { apply: 'Mark as applied', text: change.instruction, done: 'Marked as applied: the realised saving is measured from today.' };
  }
}

function RealisedSaving({ insight }: { insight: AdvisorInsight }) {
  if (insight.appliedAt === null) return <dd>Not applied yet</dd>;
  if (insight.realisedMonthlySaving === null) {
    const unmeasurable = insight.kind === 'idle-connection' || insight.kind === 'oversized-output-limit' || insight.kind === 'idle-gpu';
    return <dd>{unmeasurable ? 'Not measurable' : 'Measuring (after a full day)'}</dd>;
  }
  return <dd>{gbp(insight.realisedMonthlySaving)} a month</dd>;
}

const utcMinute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;

/** An idle GPU's evidence: each idle period of the week, the process holding memory, and what it cost at the team's £ an hour. */
function IdlePeriods({ periods, facts, total }: { periods: IdlePeriod[]; facts: Record<string, string | number>; total: string }) {
  return (
    <>
      <p>
        {facts.gpu} ({facts.model}, cluster {facts.cluster}) at {gbp(String(facts.pricePerHour))} an hour: {gbp(total)} wasted in the last {facts.windowDays} days.
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard (WCAG 2.1.1). */}
      <section className="tip__periods" aria-label={`Idle periods of ${facts.gpu}`} tabIndex={0}>
        <table>
          <caption>Idle periods (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Holding memory</th>
              <th scope="col">Idle, nothing allocated</th>
              <th scope="col">Process</th>
              <th scope="col">Wasted</th>
            </tr>
          </thead>
          <tbody>
            {periods.map((period) => (
              <tr key={period.start}>
                <td>{utcMinute(period.start)}</td>
                <td>{utcMinute(period.end)}</td>
                <td>{period.heldMinutes} min</td>
                <td>{period.idleMinutes} min</td>
                <td>{period.process === null ? '—' : `${period.process.name} (pid ${period.process.pid})`}</td>
                <td>{gbp(period.wasted)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

function Tip({ insight, demo }: { insight: AdvisorInsight; demo: boolean }) {
  const queryClient = useQueryClient();
  const apply = useMutation(applyTipMutation(queryClient));
  const titleId = `tip-${insight.id}`;
  const change = changeTexts(insight.change);
  return (
    <li className="tip" aria-labelledby={titleId}>
      <div className="tip__header">
        <h2 id={titleId} className="tip__title">
          {insight.title}
        </h2>
        <span className={`tip__confidence tip__confidence--${insight.confidence}`}>{CONFIDENCE_LABELS[insight.confidence]}</span>
      </div>
      <p className="tip__text">{insight.text}</p>
      <dl className="tip__figures">
        <div>
          <dt>Estimated saving</dt>
          <dd>{gbp(insight.estimatedMonthlySaving)} a month</dd>
        </div>
        <div>
          <dt>Realised saving</dt>
          <RealisedSaving insight={insight} />
        </div>
        <div>
          <dt>Charged for this tip</dt>
          <dd>{demo ? 'Nothing: free on a demo team' : gbp(insight.price)}</dd>
        </div>
      </dl>
      <p className="tip__change">
        <strong>Change: </strong>
        {change.text}
      </p>
      <details className="tip__evidence">
        <summary>Evidence</summary>
        {insight.evidence.idlePeriods === undefined ? (
          <p>
            {countText(insight.evidence.requests)} requests from {insight.startDate} to {insight.endDate}: {gbp(insight.currentCost)}, {gbp(insight.counterfactualCost)} after the
            change.
          </p>
        ) : (
          <IdlePeriods periods={insight.evidence.idlePeriods} facts={insight.evidence.facts} total={insight.currentCost} />
        )}
        {insight.evidence.exampleRequestIds.length > 0 && (
          <p>
            Example requests: <code>{insight.evidence.exampleRequestIds.join(', ')}</code>
          </p>
        )}
      </details>
      <div className="tip__actions">
        {insight.appliedAt === null ? (
          <button type="button" className="button button--primary button--small" disabled={apply.isPending} onClick={() => apply.mutate(insight)}>
            {apply.isPending ? 'Applying…' : change.apply}
          </button>
        ) : (
          <Badge tone="good">Applied {insight.appliedAt.slice(0, 10)}</Badge>
        )}
        {apply.isSuccess && (
          <p className="alert alert--success" role="status">
            {change.done}
          </p>
        )}
        {apply.isError && (
          <p className="alert alert--error" role="alert">
            {apply.error.message}
          </p>
        )}
      </div>
    </li>
  );
}

export function AdvisorScreen() {
  const queryClient = useQueryClient();
  const { teams, team, teamRole, picker } = useTeamFromSearch();
  const isAdmin = team !== undefined && decide('team.usage.view', { teamRole }) === 'allowed';
  const tips = useQuery({ ...advisorInsightsQuery(team?.id ?? ''), enabled: isAdmin });
  const generate = useMutation(generateTipsMutation(queryClient));
  const run = (teamId: string) => generate.mutate({ teamId, data: [] });

  const body = () => {
    if (!team) return <TeamStates teams={teams} loading="Loading optimization tips…" noTeam={{ icon: 'spark', text: 'Create or join a team to get tips on its usage.' }} />;
    if (isAdmin && tips.isPending) return <LoadingState label="Loading optimization tips…" />;
    if (!isAdmin) return <EmptyState icon="spark" title="For team admins" text="The advisor reads the whole team's usage: ask a team admin for its tips." />;
    if (tips.isError) return <ErrorState error={tips.error} onRetry={() => tips.refetch()} retrying={tips.isFetching} />;
    const { insights, totalCharged, demo } = tips.data!;
    return (
      <>
        {generate.isSuccess && (
          <p className="alert alert--success" role="status">
            {generate.data.found === 0
              ? 'No new savings found in the last 30 days.'
              : `${countText(generate.data.found)} found, ${countText(generate.data.created)} new, ${generate.data.demo ? 'free on a demo team' : `charged ${gbp(generate.data.charged)}`}.${
                  generate.data.written === 0 ? '' : ` ${countText(generate.data.written)} worded by your model.`
                }`}
          </p>
        )}
        {generate.isError && (
          <p className="alert alert--error" role="alert">
            {generate.error.message}
          </p>
        )}
        {insights.length === 0 ? (
          <EmptyState icon="spark" title="No tips yet" text="Generate tips to find where your team could spend less: cheaper models, cheaper providers, reasoning costs and idle keys." />
        ) : (
          <>
            <p className="tips__summary">
              {countText(insights.length)} tips · {demo ? 'free on a demo team' : `${gbp(totalCharged)} charged in all`}
            </p>
            <ul className="tips">
              {insights.map((insight) => (
                <Tip key={insight.id} insight={insight} demo={demo} />
              ))}
            </ul>
          </>
        )}
        <div className="advisor-screen__wording">
          <AdvisorWordingSettings teamId={team.id} />
        </div>
      </>
    );
  };

  return (
    <ScreenFrame
      title="AI Advisor"
      description="Where your team could spend less, found in its own usage and priced with the list prices it pays. Each new tip is charged once at your plan's price."
      actions={
        <>
          {picker}
          {isAdmin && (
            <button type="button" className="button button--primary" disabled={generate.isPending} onClick={() => run(team.id)}>
              {generate.isPending ? 'Generating…' : 'Generate tips'}
            </button>
          )}
        </>
      }
    >
      {body()}
    </ScreenFrame>
  );
}
