/**
 * The FinOps part of the overview for a team with usage: the filters (kept in the URL,
 * filters.ts), an export of what they select (CSV or FOCUS 1.2), and the panels —
 * totals with unpriced and estimated requests called out, spend over time, this month
 * against last, the month's forecast (ForecastPanel.tsx), tokens by category, spend by
 * model and provider, top keys and the request log. Stacked on a phone, two columns on a
 * wide screen. The team's whole usage is for its admins: anyone else sees one of the
 * groups they may view (the URL's group, else their first), picked from those groups.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { groupsQuery } from '../../api/groups/queries.ts';
import type { SyntheticGroup } from '../../api/groups/types.ts';
import { exportMutation } from '../../api/usage/mutations.ts';
import { dataFreshnessQuery, usageDistributionQuery } from '../../api/usage/queries.ts';
import type { ExportFormat, UsageFilters } from '../../api/usage/types.ts';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { ForecastPanel } from './ForecastPanel.tsx';
import { FILTER_NAMES, type FilterName, type OverviewSearch, usageFiltersOf, withFilter } from './filters.ts';
import { RequestLog } from './RequestLog.tsx';
import { DistributionPanel, MonthPanel, SpendPanel, SummaryPanel, TokensPanel } from './UsagePanels.tsx';

/** A filter's choices: what the range's usage holds, and the chosen one even when it holds none of it. */
function choices(items: { key: string; label: string }[] | undefined, chosen: string | undefined) {
  const listed = items ?? [];
  return chosen && !listed.some((item) => item.key === chosen) ? [...listed, { key: chosen, label: chosen }] : listed;
}

/**
 * `search`: the filters shown (with a group viewer's group filled in); `active`: whether
 * the URL holds any, so that Clear filters has something to clear.
 */
function FiltersBar({
  teamId,
  search,
  active,
  teamWide,
  onChange,
}: {
  teamId: string;
  search: OverviewSearch;
  active: boolean;
  teamWide: boolean;
  onChange: (next: OverviewSearch) => void;
}) {
  const set = (name: FilterName, value: string) => onChange(withFilter(search, name, value));
  const filters = usageFiltersOf(teamId, search);
  // The groups the caller may view: a team admin's are all of the team's.
  const groups = useQuery(groupsQuery({ teamId }));
  // The same calls as the panels below (one request each): the choices are what the range holds.
  const keys = useQuery(usageDistributionQuery(filters, 'key'));
  const models = useQuery(usageDistributionQuery(filters, 'model'));
  const providers = useQuery(usageDistributionQuery(filters, 'provider'));
  const range = keys.data ?? models.data;
  const select = (name: FilterName, label: string, all: string | null, options: { key: string; label: string }[]) => (
    <SelectInput label={label} id={`filter-${name}`} value={search[name] ?? ''} onChange={(event) => set(name, event.target.value)}>
      {all !== null && <option value="">{all}</option>}
      {options.map((option) => (
        <option key={option.key} value={option.key}>
          {option.label}
        </option>
      ))}
    </SelectInput>
  );
  return (
    <form className="overview-filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      <TextInput label="From" id="filter-start" type="date" value={search.start ?? range?.startDate ?? ''} max={search.end ?? range?.endDate} onChange={(event) => set('start', event.target.value)} />
      <TextInput label="To" id="filter-end" type="date" value={search.end ?? range?.endDate ?? ''} min={search.start ?? range?.startDate} onChange={(event) => set('end', event.target.value)} />
      {select(
        'group',
        'Group',
        teamWide ? 'All groups' : null,
        choices(
          groups.data?.map((group) => ({ key: group.id, label: group.name })),
          search.group,
        ),
      )}
      {select(
        'key',
        'Key',
        'All keys',
        // The advisor's wording is the team's usage without a key ('none'): nothing a key filter can name.
        choices(
          keys.data?.items.filter((item) => item.key !== 'none'),
          search.key,
        ),
      )}
      {select('model', 'Model', 'All models', choices(models.data?.items, search.model))}
      {select('provider', 'Provider', 'All providers', choices(providers.data?.items, search.provider))}
      <SelectInput label="Granularity" id="filter-granularity" value={search.granularity ?? 'day'} onChange={(event) => set('granularity', event.target.value === 'day' ? '' : event.target.value)}>
        <option value="day">Daily</option>
        <option value="hour">Hourly (up to 7 days)</option>
      </SelectInput>
      {active && (
        <button type="button" className="button button--ghost button--small overview-filters__clear" onClick={() => onChange(search.team ? { team: search.team } : {})}>
          Clear filters
        </button>
      )}
    </form>
  );
}

function ExportButtons({ filters }: { filters: UsageFilters }) {
  const download = useMutation(exportMutation());
  const start = (format: ExportFormat) => download.mutate({ filters, format });
  return (
    <div className="overview-export">
      <fieldset className="overview-export__buttons">
        <legend className="overview-export__label">Export this range</legend>
        <button type="button" className="button button--ghost button--small" onClick={() => start('csv')} disabled={download.isPending}>
          Export CSV
        </button>
        <button type="button" className="button button--ghost button--small" onClick={() => start('focus')} disabled={download.isPending}>
          Export FOCUS
        </button>
      </fieldset>
      <p className="overview-export__status" role="status">
        {download.isPending ? 'Preparing the file…' : download.isSuccess ? `Downloaded ${download.data}.` : ''}
      </p>
      {download.isError && (
        <p className="alert alert--error" role="alert">
          {download.error.message}
        </p>
      )}
    </div>
  );
}

/** The group a group viewer's overview shows: the URL's when they may view it, else their first. */
export function viewedGroup(groups: Pick<SyntheticGroup, 'id'>[], chosen: string | undefined): string | undefined {
  return groups.find((group) => group.id === chosen)?.id ?? groups[0]?.id;
}

/** `teamWide`: the caller may see the team's whole usage (a team admin); else only their groups'. */
export function UsageOverview({ teamId, search, teamWide }: { teamId: string; search: OverviewSearch; teamWide: boolean }) {
  const groups = useQuery({ ...groupsQuery({ teamId }), enabled: !teamWide });
  const active = FILTER_NAMES.some((name) => search[name] !== undefined);
  if (teamWide) return <Panels teamId={teamId} search={search} teamWide active={active} />;
  if (groups.isPending) return <LoadingState label="Loading your groups…" />;
  if (groups.isError) return <ErrorState error={groups.error} title="Your groups could not be loaded" onRetry={() => groups.refetch()} retrying={groups.isFetching} />;
  const group = viewedGroup(groups.data, search.group);
  if (group === undefined) {
    return (
      <section className="overview-panel" aria-labelledby="no-group-title">
        <div className="overview-panel__header">
          <h2 id="no-group-title">No group to show</h2>
        </div>
        <p className="overview-panel__text">The team’s whole usage is for its admins. Once you are in one of its groups, that group’s usage shows here.</p>
      </section>
    );
  }
  return <Panels teamId={teamId} search={{ ...search, group }} teamWide={false} active={active} />;
}

/** Lag past this (seconds) is worth telling: the figures poll every 5 s anyway. */
export const STALE_AFTER_SECONDS = 5;

/**
 * When the figures come from a database replica lagging more than a few seconds: how far
 * behind they are. A team admin also sees each replica's lag (an admin's line).
 */
function FreshnessNotice({ teamWide }: { teamWide: boolean }) {
  const freshness = useQuery(dataFreshnessQuery());
  if (!freshness.data) return null;
  const { behindSeconds, replicas } = freshness.data;
  const lags = replicas.map((replica) => (replica.lagSeconds === null ? 'unreachable' : `${replica.lagSeconds.toFixed(1)} s${replica.serving ? '' : ' (skipped)'}`));
  return (
    <>
      {behindSeconds > STALE_AFTER_SECONDS && (
        <p className="overview-note" role="status">
          Figures are {Math.round(behindSeconds)} s behind: they are read from a copy of the database that is catching up.
        </p>
      )}
      {teamWide && lags.length > 0 && <p className="overview-export__status">Database replica lag: {lags.join(', ')}</p>}
    </>
  );
}

function Panels({ teamId, search, teamWide, active }: { teamId: string; search: OverviewSearch; teamWide: boolean; active: boolean }) {
  const navigate = useNavigate();
  const filters = usageFiltersOf(teamId, search);
  // Every filter change replaces the URL's search, so a link or a reload shows the same view.
  const change = (next: OverviewSearch) => navigate({ to: '/dashboard', search: next as never, replace: true });
  return (
    <>
      <FreshnessNotice teamWide={teamWide} />
      <section className="overview-panel" aria-label="Filters and export">
        <FiltersBar teamId={teamId} search={search} active={active} teamWide={teamWide} onChange={change} />
        <ExportButtons filters={filters} />
      </section>
      <SummaryPanel filters={filters} />
      <SpendPanel filters={filters} granularity={search.granularity ?? 'day'} />
      {/* A team's or a group's month: the key, model and provider filters do not narrow it. */}
      <ForecastPanel teamId={teamId} groupId={search.group} />
      <MonthPanel filters={filters} />
      <TokensPanel filters={filters} />
      <DistributionPanel filters={filters} by="model" />
      <DistributionPanel filters={filters} by="provider" />
      <DistributionPanel filters={filters} by="key" wide />
      <RequestLog filters={filters} />
    </>
  );
}
