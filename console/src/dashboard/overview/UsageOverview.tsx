/**
 * The FinOps part of the overview for a team with usage: the filters (kept in the URL,
 * filters.ts), an export of what they select (CSV or FOCUS 1.2), and the panels —
 * totals with unpriced and estimated requests called out, spend over time, this month
 * against last, tokens by category, spend by model and provider, top keys and the
 * request log. Stacked on a phone, two columns on a wide screen.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { groupsQuery } from '../../api/groups/queries.ts';
import { exportMutation } from '../../api/usage/mutations.ts';
import { usageDistributionQuery } from '../../api/usage/queries.ts';
import type { ExportFormat, UsageFilters } from '../../api/usage/types.ts';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { FILTER_NAMES, type FilterName, type OverviewSearch, usageFiltersOf, withFilter } from './filters.ts';
import { RequestLog } from './RequestLog.tsx';
import { DistributionPanel, MonthPanel, SpendPanel, SummaryPanel, TokensPanel } from './UsagePanels.tsx';

/** A filter's choices: what the range's usage holds, and the chosen one even when it holds none of it. */
function choices(items: { key: string; label: string }[] | undefined, chosen: string | undefined) {
  const listed = items ?? [];
  return chosen && !listed.some((item) => item.key === chosen) ? [...listed, { key: chosen, label: chosen }] : listed;
}

function FiltersBar({ teamId, search, onChange }: { teamId: string; search: OverviewSearch; onChange: (next: OverviewSearch) => void }) {
  const set = (name: FilterName, value: string) => onChange(withFilter(search, name, value));
  const filters = usageFiltersOf(teamId, search);
  const groups = useQuery(groupsQuery({ teamId }));
  // The same calls as the panels below (one request each): the choices are what the range holds.
  const keys = useQuery(usageDistributionQuery(filters, 'key'));
  const models = useQuery(usageDistributionQuery(filters, 'model'));
  const providers = useQuery(usageDistributionQuery(filters, 'provider'));
  const range = keys.data ?? models.data;
  const active = FILTER_NAMES.some((name) => search[name] !== undefined);
  const select = (name: FilterName, label: string, all: string, options: { key: string; label: string }[]) => (
    <SelectInput label={label} id={`filter-${name}`} value={search[name] ?? ''} onChange={(event) => set(name, event.target.value)}>
      <option value="">{all}</option>
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
        'All groups',
        choices(
          groups.data?.map((group) => ({ key: group.id, label: group.name })),
          search.group,
        ),
      )}
      {select('key', 'Key', 'All keys', choices(keys.data?.items, search.key))}
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

export function UsageOverview({ teamId, search }: { teamId: string; search: OverviewSearch }) {
  const navigate = useNavigate();
  const filters = usageFiltersOf(teamId, search);
  // Every filter change replaces the URL's search, so a link or a reload shows the same view.
  const change = (next: OverviewSearch) => navigate({ to: '/dashboard', search: next as never, replace: true });
  return (
    <>
      <section className="overview-panel" aria-label="Filters and export">
        <FiltersBar teamId={teamId} search={search} onChange={change} />
        <ExportButtons filters={filters} />
      </section>
      <SummaryPanel filters={filters} />
      <SpendPanel filters={filters} granularity={search.granularity ?? 'day'} />
      <MonthPanel filters={filters} />
      {/* The forecast (ForecastPanel.tsx) takes its place here, beside this month against last, once it lands. */}
      <TokensPanel filters={filters} />
      <DistributionPanel filters={filters} by="model" />
      <DistributionPanel filters={filters} by="provider" />
      <DistributionPanel filters={filters} by="key" wide />
      <RequestLog filters={filters} />
    </>
  );
}
