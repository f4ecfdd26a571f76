/**
 * Data retention on the Team screen (team admins): every retention setting of the team in
 * one place — raw usage events (the request log and per-request exports; daily totals are
 * kept whatever this says), captured prompts (prompt capture's own setting, at most the
 * plan's), raw GPU samples (their classified minutes are kept) and the audit log (its own
 * bounds). Each field empty means the default (for raw data also the longest); the server's
 * bounds are checked before saving and its refusal, naming the field, is shown on that field.
 */
import { type UseMutationResult, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { saveRetentionMutation } from '../../api/compliance/mutations.ts';
import { retentionQuery } from '../../api/compliance/queries.ts';
import type { RetentionChanges, TeamRetention } from '../../api/compliance/types.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { TextInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';

type Field = keyof RetentionChanges;

interface Row {
  field: Field;
  label: string;
  unit: 'days' | 'hours';
  set: number | null;
  effective: number;
  defaultValue: number;
  min: number;
  max: number;
  what: string;
}

const rowsOf = (retention: TeamRetention): Row[] => [
  {
    field: 'usageEventDays',
    label: 'Keep raw usage events for (days)',
    unit: 'days',
    set: retention.usageEvents.days,
    effective: retention.usageEvents.effectiveDays,
    defaultValue: retention.usageEvents.defaultDays,
    min: retention.usageEvents.minDays,
    max: retention.usageEvents.maxDays,
    what: 'Each request in the request log and per-request exports; daily totals stay.',
  },
  {
    field: 'promptCaptureDays',
    label: 'Keep captured prompts for (days)',
    unit: 'days',
    set: retention.promptCaptures.days,
    effective: retention.promptCaptures.effectiveDays,
    defaultValue: retention.promptCaptures.defaultDays,
    min: retention.promptCaptures.minDays,
    max: retention.promptCaptures.maxDays,
    what: 'Prompts and answers kept by prompt capture.',
  },
  {
    field: 'gpuSampleHours',
    label: 'Keep raw GPU samples for (hours)',
    unit: 'hours',
    set: retention.gpuSamples.hours,
    effective: retention.gpuSamples.effectiveHours,
    defaultValue: retention.gpuSamples.defaultHours,
    min: retention.gpuSamples.minHours,
    max: retention.gpuSamples.maxHours,
    what: 'Each sample an agent pushed or an exporter showed; the minutes classified from them stay.',
  },
  {
    field: 'auditLogDays',
    label: 'Keep the audit log for (days)',
    unit: 'days',
    set: retention.auditLog.days,
    effective: retention.auditLog.effectiveDays,
    defaultValue: retention.auditLog.defaultDays,
    min: retention.auditLog.minDays,
    max: retention.auditLog.maxDays,
    what: 'Older entries are deleted; the hash chain still verifies from the last one deleted.',
  },
];

type Save = UseMutationResult<TeamRetention, Error, RetentionChanges>;

function RetentionForm({ retention, save }: { retention: TeamRetention; save: Save }) {
  const rows = rowsOf(retention);
  const [values, setValues] = useState<Record<Field, string>>(
    () => Object.fromEntries(rows.map((row) => [row.field, row.set === null ? '' : String(row.set)])) as Record<Field, string>,
  );
  const [problems, setProblems] = useState<Partial<Record<Field, string>>>({});
  const serverField = save.error instanceof ApiError ? (save.error.body as { field?: string } | undefined)?.field : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const changes: RetentionChanges = {};
    const found: Partial<Record<Field, string>> = {};
    for (const row of rows) {
      const text = values[row.field].trim();
      const value = text === '' ? null : Number(text);
      if (value !== null && (!Number.isInteger(value) || value < row.min || value > row.max)) {
        found[row.field] = `Enter a whole number of ${row.unit} from ${row.min} to ${row.max}, or leave it empty`;
      } else if (value !== row.set) changes[row.field] = value;
    }
    setProblems(found);
    if (Object.keys(found).length === 0 && Object.keys(changes).length > 0) save.mutate(changes);
  };

  return (
    <form className="settings-panel" onSubmit={submit} aria-labelledby="retention-title" noValidate>
      <h2 id="retention-title" className="settings-panel__title">
        Data retention
      </h2>
      <p className="settings-panel__text">How long this team's raw data is kept before it is deleted for good. Empty: the default, which is also the longest.</p>
      {rows.map((row) => (
        <TextInput
          key={row.field}
          label={row.label}
          id={`retention-${row.field}`}
          inputMode="numeric"
          value={values[row.field]}
          placeholder={String(row.defaultValue)}
          onChange={(event) => setValues({ ...values, [row.field]: event.target.value })}
          hint={`${row.what} Empty: ${row.defaultValue} ${row.unit}; ${row.min} to ${row.max}. Now: ${row.effective} ${row.unit}.`}
          error={problems[row.field] ?? (serverField === row.field ? save.error?.message : undefined)}
        />
      ))}
      <button type="submit" className="button button--primary" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save retention'}
      </button>
      {serverField === undefined && <FormError error={save.error} />}
      {save.isSuccess && !save.isPending && (
        <p className="alert alert--success" role="status">
          Retention saved.
        </p>
      )}
    </form>
  );
}

export function DataRetentionSettings({ teamId }: { teamId: string }) {
  const queryClient = useQueryClient();
  const retention = useQuery(retentionQuery(teamId));
  // Here, not in the form: the form starts again from each saved answer, the outcome stays.
  const save = useMutation(saveRetentionMutation(queryClient, teamId));
  if (retention.isPending) return <LoadingState label="Loading data retention…" />;
  if (retention.isError) return <ErrorState error={retention.error} title="Data retention could not be loaded" onRetry={() => retention.refetch()} retrying={retention.isRefetching} />;
  return <RetentionForm key={JSON.stringify(retention.data)} retention={retention.data} save={save} />;
}
