/**
 * /dashboard/settings/audit: a team's audit log (Enterprise; team admins). Filters (action,
 * who, target type, a range of UTC days), a page of entries newest first — when, who, from
 * where, the action and its target, and what changed (each field's value before → after,
 * secrets already redacted by the server; money fields — micro-units or pence — in their
 * currency, the exact value in the title) — a "Verify chain" button that walks the hash
 * chain and says whether it holds or where it breaks, and the filtered log exported as CSV
 * or JSON. The team's plan is read first (its seats say it): a team on a plan without the
 * audit log gets the plan-required message and no audit call is made. On a phone each entry
 * is a card of labelled lines instead of a table to scroll sideways.
 */
import { auditLogRefusal, type Currency, decide, formatMoney, money, planTerms, type TeamRole } from '@spendgate/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { AUDIT_PAGE_SIZE, auditPageQuery, downloadAuditExport, verifyAuditChain } from '../../api/audit/queries.ts';
import type { AuditEntry, AuditExportFormat, AuditFilters, AuditVerification } from '../../api/audit/types.ts';
import { isPlanRequired } from '../../api/gpu/queries.ts';
import { myTeamsQuery, teamMembersQuery, teamSeatsQuery } from '../../api/team/queries.ts';
import { salesMailto } from '../../shared/config.ts';
import { notify } from '../../shared/notifications.ts';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { Panel } from '../ui/Panel.tsx';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { TeamPicker } from '../ui/TeamPicker.tsx';
import './audit.css';
import { Badge } from '../ui/Badge.tsx';

function PlanRequired({ message }: { message: string }) {
  return (
    <EmptyState
      icon="shield"
      title="The audit log is on the Enterprise plan"
      text={message}
      action={
        <a className="button button--primary" href={salesMailto()}>
          Contact Sales
        </a>
      }
    />
  );
}

const show = (value: unknown) => (value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** Money fields by their names' unit: integer micro-units or whole pence. */
const MONEY_UNITS = [
  { suffix: 'Micros', name: 'micro-units', micros: 1n },
  { suffix: 'Pence', name: 'pence', micros: 10_000n },
] as const;

/** The currency an entry's money is in: its own `currency` field, else Spendgate's billing currency (GBP). */
function entryCurrency(entry: AuditEntry): Currency {
  const named = entry.after?.currency ?? entry.before?.currency ?? entry.details.currency;
  return named === 'USD' ? 'USD' : 'GBP';
}

/** A field's value: money for people (its exact value in the title), anything else as it is. */
function FieldValue({ field, value, currency }: { field: string; value: unknown; currency: Currency }) {
  const unit = MONEY_UNITS.find((candidate) => field.endsWith(candidate.suffix));
  const exact = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  if (!unit || !/^-?\d+$/.test(exact)) return <>{show(value)}</>;
  return (
    <data value={exact} title={`${exact} ${unit.name}`}>
      {formatMoney(money(BigInt(exact) * unit.micros, currency))}
    </data>
  );
}

/** Each field that changed, before → after; an entry without values lists its details. */
function Changes({ entry }: { entry: AuditEntry }) {
  const currency = entryCurrency(entry);
  if (entry.before === null && entry.after === null) {
    const details = Object.entries(entry.details);
    if (details.length === 0) return <span className="audit-muted">—</span>;
    return (
      <ul className="audit-changes">
        {details.map(([field, value]) => (
          <li key={field}>
            <span className="audit-changes__field">{field}</span> <FieldValue field={field} value={value} currency={currency} />
          </li>
        ))}
      </ul>
    );
  }
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((field) => show(before[field]) !== show(after[field]));
  if (fields.length === 0) return <span className="audit-muted">No field changed</span>;
  return (
    <ul className="audit-changes">
      {fields.map((field) => (
        <li key={field}>
          <span className="audit-changes__field">{field}</span>{' '}
          <del>
            <FieldValue field={field} value={before[field]} currency={currency} />
          </del>{' '}
          →{' '}
          <ins>
            <FieldValue field={field} value={after[field]} currency={currency} />
          </ins>
        </li>
      ))}
    </ul>
  );
}

function VerificationResult({ result }: { result: AuditVerification }) {
  if (result.ok) {
    return (
      <p className="alert alert--success audit-verify" role="status">
        Chain verified: {result.checked} {result.checked === 1 ? 'entry' : 'entries'} intact, up to #{result.headSeq}.
      </p>
    );
  }
  const REASONS = {
    edited: 'was edited after it was written',
    missing: 'follows one or more deleted entries',
    relinked: 'no longer follows the entry before it',
    'tail-missing': 'is missing: the newest entries were deleted',
  };
  return (
    <p className="alert alert--error audit-verify" role="alert">
      Chain broken at entry #{result.broken!.seq}: it {REASONS[result.broken!.reason]}.
    </p>
  );
}

const dayStart = (day: string) => (day ? `${day}T00:00:00.000Z` : undefined);
const dayAfter = (day: string) => (day ? new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString() : undefined);

interface Draft {
  action: string;
  actorUserId: string;
  targetType: string;
  fromDay: string;
  toDay: string;
}

const NO_FILTERS: Draft = { action: '', actorUserId: '', targetType: '', fromDay: '', toDay: '' };

function AuditLog({ teamId }: { teamId: string }) {
  const [draft, setDraft] = useState<Draft>(NO_FILTERS);
  const [filters, setFilters] = useState<AuditFilters>({ teamId });
  const [page, setPage] = useState(1);
  const entries = useQuery(auditPageQuery(filters, page));
  const members = useQuery(teamMembersQuery(teamId));
  const verify = useMutation({ mutationFn: () => verifyAuditChain(teamId) });
  const exporting = useMutation({
    mutationFn: (format: AuditExportFormat) => downloadAuditExport(filters, format),
    onSuccess: (name) => notify(`Exported ${name}`, 'success'),
    onError: (error) => notify(error.message, 'error'),
  });

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters({
      teamId,
      ...(draft.action.trim() && { action: draft.action.trim() }),
      ...(draft.actorUserId && { actorUserId: draft.actorUserId }),
      ...(draft.targetType.trim() && { targetType: draft.targetType.trim() }),
      ...(draft.fromDay && { from: dayStart(draft.fromDay) }),
      ...(draft.toDay && { to: dayAfter(draft.toDay) }),
    });
    setPage(1);
  };
  const field = (name: keyof Draft) => ({ value: draft[name], onChange: (event: { target: { value: string } }) => setDraft({ ...draft, [name]: event.target.value }) });

  if (entries.isError && isPlanRequired(entries.error)) return <PlanRequired message={entries.error.message} />;
  const pages = entries.data ? Math.max(1, Math.ceil(entries.data.total / AUDIT_PAGE_SIZE)) : 1;
  return (
    <div className="audit-layout">
      <Panel id="audit-chain" title="Hash chain" wide meta="Each entry carries the hash of the one before it: an edited or deleted entry breaks the chain.">
        <div className="audit-actions">
          <button type="button" className="button button--primary button--small" onClick={() => verify.mutate()} disabled={verify.isPending}>
            {verify.isPending ? 'Verifying…' : 'Verify chain'}
          </button>
          <button type="button" className="button button--ghost button--small" onClick={() => exporting.mutate('csv')} disabled={exporting.isPending}>
            Export CSV
          </button>
          <button type="button" className="button button--ghost button--small" onClick={() => exporting.mutate('json')} disabled={exporting.isPending}>
            Export JSON
          </button>
        </div>
        {verify.data && <VerificationResult result={verify.data} />}
        {verify.isError && (
          <p className="alert alert--error audit-verify" role="alert">
            {verify.error.message}
          </p>
        )}
      </Panel>
      <Panel id="audit-log" title="Entries" wide meta={entries.data ? `${entries.data.total} ${entries.data.total === 1 ? 'entry' : 'entries'}, newest first` : undefined}>
        <form className="audit-filters" onSubmit={apply} aria-label="Filter the audit log">
          <TextInput label="Action" id="audit-action" placeholder="key.updated" {...field('action')} />
          <SelectInput label="Who" id="audit-actor" {...field('actorUserId')}>
            <option value="">Anyone</option>
            {members.data?.map((member) => (
              <option key={member.id} value={member.id}>
                {member.email}
              </option>
            ))}
          </SelectInput>
          <TextInput label="Target type" id="audit-target-type" placeholder="issued_key" {...field('targetType')} />
          <TextInput label="From (UTC day)" id="audit-from" type="date" {...field('fromDay')} />
          <TextInput label="To (UTC day)" id="audit-to" type="date" {...field('toDay')} />
          <div className="audit-filters__buttons">
            <button type="submit" className="button button--primary button--small">
              Apply filters
            </button>
            <button
              type="button"
              className="button button--ghost button--small"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters({ teamId });
                setPage(1);
              }}
            >
              Clear
            </button>
          </div>
        </form>
        {entries.isPending ? (
          <LoadingState label="Loading the audit log…" />
        ) : entries.isError ? (
          <ErrorState error={entries.error} title="The audit log could not be loaded" onRetry={() => entries.refetch()} retrying={entries.isFetching} />
        ) : entries.data.entries.length === 0 ? (
          <p className="overview-panel__text">No entries match these filters.</p>
        ) : (
          <>
            {/* Focusable, so a keyboard can scroll it sideways on a phone. */}
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard (WCAG 2.1.1). */}
            <section className="table-scroll" tabIndex={0} aria-label="Audit entries, newest first">
              <table className="audit-table">
                <thead>
                  <tr>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">Who</th>
                    <th scope="col">From where</th>
                    <th scope="col">Action</th>
                    <th scope="col">What changed</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.data.entries.map((entry) => (
                    <tr key={entry.id}>
                      <td data-label="When (UTC)">
                        {entry.createdAt.slice(0, 19).replace('T', ' ')}
                        <span className="audit-muted audit-block">#{entry.seq}</span>
                      </td>
                      <td data-label="Who">{entry.actor.kind === 'system' ? <Badge>System</Badge> : (entry.actor.email ?? entry.actor.userId)}</td>
                      <td data-label="From where">
                        {entry.ip ?? '—'}
                        {entry.userAgent && <span className="audit-muted audit-block">{entry.userAgent}</span>}
                      </td>
                      <td data-label="Action">
                        <code>{entry.action}</code>
                        <span className="audit-muted audit-block">
                          {entry.targetType} {entry.targetId}
                        </span>
                      </td>
                      <td data-label="What changed">
                        <Changes entry={entry} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <nav className="audit-pages" aria-label="Audit log pages">
              <button type="button" className="button button--ghost button--small" onClick={() => setPage(page - 1)} disabled={page <= 1}>
                Newer
              </button>
              <span>
                Page {page} of {pages}
              </span>
              <button type="button" className="button button--ghost button--small" onClick={() => setPage(page + 1)} disabled={page >= pages}>
                Older
              </button>
            </nav>
          </>
        )}
      </Panel>
    </div>
  );
}

/** The team's plan and the caller's role first: the log only where both allow it. */
function TeamAudit({ teamId, teamRole }: { teamId: string; teamRole: TeamRole | null }) {
  const seats = useQuery(teamSeatsQuery(teamId));
  if (decide('team.audit.view', { teamRole }) !== 'allowed') return <EmptyState icon="shield" title="Team admins only" text="Only team admins can read the audit log." />;
  if (seats.isPending) return <LoadingState label="Loading your team's plan…" />;
  if (seats.isError) return <ErrorState error={seats.error} title="Your team's plan could not be loaded" onRetry={() => seats.refetch()} retrying={seats.isFetching} />;
  const terms = planTerms(seats.data.planSlug);
  if (!terms.auditLog) return <PlanRequired message={auditLogRefusal(terms)} />;
  return <AuditLog teamId={teamId} />;
}

export function AuditScreen() {
  const navigate = useNavigate();
  const search = useSearch({ strict: false }) as { team?: unknown };
  const teams = useQuery(myTeamsQuery());
  const team = teams.data?.find((candidate) => candidate.id === search.team) ?? teams.data?.[0];

  const content = () => {
    if (teams.isPending) return <LoadingState label="Loading your teams…" />;
    if (teams.isError) return <ErrorState error={teams.error} title="Your teams could not be loaded" onRetry={() => teams.refetch()} retrying={teams.isFetching} />;
    if (!team) return <EmptyState icon="shield" title="No team yet" text="The audit log belongs to a team: create or join one in Settings › Team first." />;
    return <TeamAudit key={team.id} teamId={team.id} teamRole={(team.role ?? null) as TeamRole | null} />;
  };

  return (
    <ScreenFrame
      title="Audit log"
      description="Every change to money, keys, roles, budgets, connections, plans and alert channels: who made it, from where, and what it changed."
      actions={<TeamPicker teams={teams.data} teamId={team?.id} onPick={(id) => navigate({ to: '.', search: { team: id } as never, replace: true })} />}
    >
      {content()}
    </ScreenFrame>
  );
}
