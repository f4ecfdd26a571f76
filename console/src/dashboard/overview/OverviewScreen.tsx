/**
 * /dashboard: the first screen after sign-in. Until the team is set up it shows the
 * first-run checklist (each step ticked from real data, onboarding.ts) and snippets for
 * the `openai` and `@anthropic-ai/sdk` clients; before any usage, a button that loads a
 * demo team; on a demo team, how far its sample usage has been recorded (in the
 * background, a day at a time); once the first request is recorded, the FinOps overview
 * (UsageOverview.tsx) under the filters of the URL (a team's whole usage for its admins,
 * one of their groups' for its other members). The team shown is the URL's `team`, else
 * the user's first. Both refresh themselves, so a first request, and each demo day,
 * appears within seconds without a reload.
 */
import { decide, } from '@spendgate/core';
import { useMutation, useMutationState, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { isSetUp, teamOverviewQuery } from '../../api/overview/queries.ts';
import type { TeamOverview } from '../../api/overview/types.ts';
import { demoTeamMutation } from '../../api/usage/mutations.ts';
import type { DemoStatus } from '../../api/usage/types.ts';
import { useSession } from '../../shared/session.ts';
import { Icon } from '../../shared/ui/Icon.tsx';
import { countText } from '../connections/format.ts';
import { CopyField } from '../ui/CopyField.tsx';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { TeamStates, useTeamFromSearch } from '../ui/TeamFromSearch.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { readOverviewSearch } from './filters.ts';
import { anthropicSnippet, checklist, gatewayOrigin, KEY_PLACEHOLDER, openAISnippet } from './onboarding.ts';
import { UsageOverview } from './UsageOverview.tsx';
import './overview.css';

/**
 * The plaintext of the key issued last in this page's life, from the key-issue
 * mutation's result (dashboard/keys): the API never shows a key again, so a reload
 * forgets it and the snippets fall back to the placeholder.
 */
function useJustIssuedKey(): string | undefined {
  const keys = useMutationState({
    filters: { mutationKey: ['keys', 'issue'], status: 'success' },
    select: (mutation) => (mutation.state.data as { key?: unknown } | undefined)?.key,
  });
  const last = keys.at(-1);
  return typeof last === 'string' ? last : undefined;
}

function Checklist({ hasTeam, overview, mayConnect }: { hasTeam: boolean; overview: TeamOverview | undefined; mayConnect: boolean }) {
  const steps = checklist(hasTeam, overview, mayConnect);
  const done = steps.filter((step) => step.done).length;
  const next = steps.find((step) => !step.done && step.to);
  return (
    <section className="overview-panel" aria-labelledby="checklist-title">
      <div className="overview-panel__header">
        <h2 id="checklist-title">Get started</h2>
        <p className="overview-panel__meta">
          {done} of {steps.length} done
        </p>
      </div>
      <ol className="checklist">
        {steps.map((step, index) => (
          <li key={step.id} className={`checklist__step${step.done ? ' checklist__step--done' : ''}`}>
            <span className="checklist__mark" aria-hidden="true">
              {step.done ? <Icon name="check" size={16} /> : index + 1}
            </span>
            <div className="checklist__body">
              <p className="checklist__title">
                <span className="visually-hidden">{step.done ? 'Done: ' : 'To do: '}</span>
                {step.title}
              </p>
              {!step.done && <p className="checklist__hint">{step.hint}</p>}
            </div>
            {!step.done && step.to && (
              <Link to={step.to} className={`button button--small ${step === next ? 'button--primary' : 'button--ghost'}`}>
                {step.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Snippets({ issuedKey }: { issuedKey: string | undefined }) {
  const origin = gatewayOrigin();
  const key = issuedKey ?? KEY_PLACEHOLDER;
  return (
    <section className="overview-panel" aria-labelledby="snippets-title">
      <div className="overview-panel__header">
        <h2 id="snippets-title">Call the gateway</h2>
      </div>
      <p className="overview-panel__text">
        Point your client at <code>{origin}/v1</code> (OpenAI) or <code>{origin}</code> (Anthropic) with a key issued in one of your groups. Every request is
        metered and shows here.
      </p>
      {issuedKey ? (
        <p className="alert alert--success">These snippets hold the key you just issued. It is not shown again once you leave or reload the dashboard: keep it safe now.</p>
      ) : (
        <p className="overview-note">
          <strong>Replace {KEY_PLACEHOLDER}</strong> with a key from one of your groups: the snippets hold a placeholder, which the gateway refuses.
        </p>
      )}
      <CopyField label="OpenAI SDK (openai)" value={openAISnippet(origin, key)} multiline />
      <CopyField label="Anthropic SDK (@anthropic-ai/sdk)" value={anthropicSnippet(origin, key)} multiline />
    </section>
  );
}

/** An empty team's way to see the overview at work: a demo team of its own, switched to once made. */
function DemoData() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const demo = useMutation(demoTeamMutation(queryClient));
  const load = () => demo.mutate(undefined, { onSuccess: (team) => navigate({ to: '/dashboard', search: { team: team.teamId } as never }) });
  return (
    <section className="overview-panel" aria-labelledby="demo-title">
      <div className="overview-panel__header">
        <h2 id="demo-title">No usage yet</h2>
      </div>
      <p className="overview-panel__text">
        Spend, tokens and requests show here once your keys are used. To see the overview at work now, load a demo team of your own: three groups, six keys and
        90 days of sample usage, marked as demo and never billed.
      </p>
      <p>
        <button type="button" className="button button--primary button--small" onClick={load} disabled={demo.isPending}>
          {demo.isPending ? 'Loading demo data…' : 'Load demo data'}
        </button>
      </p>
      {demo.isError && (
        <p className="alert alert--error" role="alert">
          {demo.error.message}
        </p>
      )}
    </section>
  );
}

/** A demo team whose sample usage is still being recorded: how many of its days have landed (the panels below fill in as they do). */
function DemoProgress({ demo }: { demo: DemoStatus }) {
  return (
    <section className="overview-panel" aria-labelledby="demo-title">
      <div className="overview-panel__header">
        <h2 id="demo-title">Loading demo data</h2>
        <p className="overview-panel__meta">
          {demo.daysFilled} of {demo.days} days
        </p>
      </div>
      <progress className="demo-progress" max={demo.days} value={demo.daysFilled} aria-labelledby="demo-title" />
      <p className="overview-panel__text" role="status">
        {demo.daysFilled} of {demo.days} days of sample usage recorded ({countText(demo.requests)} requests), oldest first: the overview fills in as each day lands.
      </p>
    </section>
  );
}

export function OverviewScreen() {
  const { user } = useSession();
  const search = readOverviewSearch(useSearch({ strict: false }) as Record<string, unknown>);
  const { teams, team, teamRole, picker } = useTeamFromSearch();
  const overview = useQuery({ ...teamOverviewQuery(team?.id ?? ''), enabled: Boolean(team) });
  const issuedKey = useJustIssuedKey();

  const content = () => {
    if (!teams.isSuccess) return <TeamStates teams={teams} loading="Loading your overview…" />;
    if (team && overview.isPending) return <LoadingState label="Loading your overview…" />;
    if (team && overview.isError && !overview.data) {
      return <ErrorState error={overview.error} title="The overview could not be loaded" onRetry={() => overview.refetch()} retrying={overview.isFetching} />;
    }
    const data = overview.data;
    const setUp = data ? isSetUp(data) : false;
    const hasUsage = Boolean(data?.setup.firstRequestAt);
    return (
      <div className="overview">
        {!setUp && <Checklist hasTeam={Boolean(team)} overview={data} mayConnect={!team || decide('connection.manage', { teamRole }) === 'allowed'} />}
        {data?.demo?.state === 'filling' && <DemoProgress demo={data.demo} />}
        {!hasUsage && !data?.demo && <DemoData />}
        {team && hasUsage && <UsageOverview teamId={team.id} search={search} teamWide={decide('team.usage.view', { teamRole }) === 'allowed'} />}
        {team && <Snippets issuedKey={issuedKey} />}
      </div>
    );
  };

  return (
    <ScreenFrame
      title={`Welcome${user?.name ? `, ${user.name}` : ''}`}
      description="Usage, cost and forecasts across every provider your team uses."
      actions={picker}
    >
      {content()}
    </ScreenFrame>
  );
}
