/**
 * Prompt capture on the Team screen (team admins): off by default; when on, each group
 * opts in too (a group captures only while its team does). Retention in days (empty: the
 * deployment's default, never past the plan's maximum) and the team's own redaction
 * patterns, one per line, which the server checks (RE2: no back references or
 * look-arounds) and names when it refuses one.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { groupsQuery } from '../../api/groups/queries.ts';
import { updateGroupCaptureMutation, updateTeamCaptureMutation } from '../../api/requests/mutations.ts';
import { captureSettingsQuery } from '../../api/requests/queries.ts';
import type { PromptCaptureSettings as Settings } from '../../api/requests/types.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { TextInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import '../../styles/requests.css';

const patternsOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

function CaptureForm({ teamId, settings }: { teamId: string; settings: Settings }) {
  const queryClient = useQueryClient();
  const update = useMutation(updateTeamCaptureMutation(queryClient, teamId));
  const updateGroup = useMutation(updateGroupCaptureMutation(queryClient, teamId));
  const groups = useQuery(groupsQuery({ teamId }));
  const [enabled, setEnabled] = useState(settings.enabled);
  const [retention, setRetention] = useState(settings.retentionDays === null ? '' : String(settings.retentionDays));
  const [patterns, setPatterns] = useState(settings.redactionPatterns.join('\n'));
  const [retentionProblem, setRetentionProblem] = useState<string>();
  useEffect(() => {
    setEnabled(settings.enabled);
  }, [settings.enabled]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const days = retention.trim() === '' ? null : Number(retention);
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > settings.maxRetentionDays)) {
      setRetentionProblem(`Enter a whole number of days from 1 to ${settings.maxRetentionDays}, or leave it empty`);
      return;
    }
    setRetentionProblem(undefined);
    update.mutate({ enabled, retentionDays: days, redactionPatterns: patternsOf(patterns) });
  };
  const groupOn = (groupId: string) => settings.groups.find((group) => group.groupId === groupId)?.enabled ?? false;

  return (
    <form className="settings-panel" onSubmit={submit} aria-labelledby="capture-title" noValidate>
      <h2 id="capture-title" className="settings-panel__title">
        Prompt capture
      </h2>
      <p className="settings-panel__text">
        Keep each request's prompt and answer (up to 64 KiB each) so people who can see a group's usage can read them. API keys, bearer tokens,
        e-mail addresses, card numbers and your own patterns are redacted before anything is stored, and what is kept is encrypted with your team's
        key. Every view is recorded in the audit log.
      </p>
      <label className="capture-check">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        <span>Capture prompts for this team</span>
      </label>
      <TextInput
        label="Keep captures for (days)"
        id="capture-retention"
        inputMode="numeric"
        value={retention}
        placeholder={String(settings.defaultRetentionDays)}
        onChange={(event) => setRetention(event.target.value)}
        hint={`Empty: ${settings.defaultRetentionDays} days. Your plan keeps them at most ${settings.maxRetentionDays} days. Now: ${settings.effectiveRetentionDays} days.`}
        error={retentionProblem}
      />
      <div className="form-field">
        <label className="form-field__label" htmlFor="capture-patterns">
          Your redaction patterns
        </label>
        <textarea
          id="capture-patterns"
          className="capture-patterns"
          value={patterns}
          onChange={(event) => setPatterns(event.target.value)}
          aria-describedby="capture-patterns-hint"
          spellCheck={false}
        />
        <p id="capture-patterns-hint" className="form-field__help">
          One regular expression per line (RE2 syntax, at most 20 of 200 characters), e.g. ACME-[0-9]+
        </p>
      </div>
      <button type="submit" className="button button--primary" disabled={update.isPending}>
        {update.isPending ? 'Saving…' : 'Save prompt capture'}
      </button>
      <FormError error={update.error} />
      {update.isSuccess && !update.isPending && (
        <p className="alert alert--success" role="status">
          Prompt capture saved.
        </p>
      )}
      <h3 className="request-body__title">Groups that capture</h3>
      {groups.isPending ? (
        <LoadingState label="Loading groups…" />
      ) : groups.isError ? (
        <ErrorState error={groups.error} onRetry={() => groups.refetch()} retrying={groups.isRefetching} />
      ) : groups.data.length === 0 ? (
        <p className="settings-panel__text">This team has no groups yet.</p>
      ) : (
        <ul className="capture-groups">
          {groups.data.map((group) => (
            <li key={group.id}>
              <label className="capture-check">
                <input
                  type="checkbox"
                  checked={groupOn(group.id)}
                  disabled={updateGroup.isPending}
                  onChange={(event) => updateGroup.mutate({ groupId: group.id, enabled: event.target.checked })}
                />
                <span>
                  {group.name}
                  {groupOn(group.id) && !settings.enabled ? ' (waits for the team to capture)' : ''}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
      <FormError error={updateGroup.error} />
    </form>
  );
}

export function PromptCaptureSettings({ teamId }: { teamId: string }) {
  const settings = useQuery(captureSettingsQuery(teamId));
  if (settings.isPending) return <LoadingState label="Loading prompt capture…" />;
  if (settings.isError) return <ErrorState error={settings.error} onRetry={() => settings.refetch()} retrying={settings.isRefetching} />;
  return <CaptureForm teamId={teamId} settings={settings.data} />;
}
