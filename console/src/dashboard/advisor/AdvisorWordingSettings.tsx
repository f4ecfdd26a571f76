/**
 * The AI advisor's wording, on the advisor and Team screens (team admins): off by default;
 * when on, a model rewords each tip's text, through one of the team's connections or
 * Spendgate's optimised upstream. Its calls are the team's own usage — in the request log as
 * "AI advisor wording", priced like requests through that connection — and the figures in
 * tips are always the advisor's. The server names a field it refuses; the message is shown.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { saveWordingMutation } from '../../api/advisor/mutations.ts';
import { advisorWordingQuery } from '../../api/advisor/queries.ts';
import type { AdvisorWordingSetting } from '../../api/advisor/types.ts';
import { connectionsQuery } from '../../api/connections/queries.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import '../../styles/settings.css';
import './advisor.css';

function WordingForm({ setting }: { setting: AdvisorWordingSetting }) {
  const queryClient = useQueryClient();
  const save = useMutation(saveWordingMutation(queryClient, setting.teamId));
  const connections = useQuery(connectionsQuery());
  const mine = (connections.data ?? []).filter((connection) => connection.teamId === setting.teamId);
  const [enabled, setEnabled] = useState(setting.enabled);
  const [source, setSource] = useState(setting.source);
  const [connectionId, setConnectionId] = useState(setting.connectionId ?? '');
  const [model, setModel] = useState(setting.model);
  const [problems, setProblems] = useState<{ connectionId?: string; model?: string }>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = {
      ...(enabled && source === 'connection' && connectionId === '' && { connectionId: 'Choose one of your connections' }),
      ...(model.trim() === '' && { model: 'Enter the model that words the tips' }),
    };
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    save.mutate({ enabled, source, connectionId: source === 'connection' && connectionId !== '' ? connectionId : null, model: model.trim() });
  };

  return (
    <form className="settings-panel" onSubmit={submit} aria-labelledby="wording-title" noValidate>
      <h2 id="wording-title" className="settings-panel__title">
        AI advisor wording
      </h2>
      <p className="settings-panel__text">
        Off by default: tips are written from templates. On, a model rewrites each tip's text; the figures are always the advisor's, and a rewrite
        that changes one is not used. Each call is your team's own usage, listed in the request log as "AI advisor wording" and priced like a request
        through the connection (or an optimised key on Spendgate's upstream).
      </p>
      <label className="advisor-wording__check">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        <span>Word tips with a model</span>
      </label>
      <fieldset className="advisor-wording__sources">
        <legend className="form-field__label">Call it through</legend>
        <label className="advisor-wording__check">
          <input type="radio" name="wording-source" value="connection" checked={source === 'connection'} onChange={() => setSource('connection')} />
          <span>One of your connections</span>
        </label>
        <label className="advisor-wording__check">
          <input
            type="radio"
            name="wording-source"
            value="operator"
            checked={source === 'operator'}
            disabled={!setting.operatorAvailable && source !== 'operator'}
            onChange={() => setSource('operator')}
          />
          <span>Spendgate's optimised upstream{setting.operatorAvailable ? '' : ' (not offered here)'}</span>
        </label>
      </fieldset>
      {source === 'connection' && (
        <SelectInput
          label="Connection"
          id="wording-connection"
          value={connectionId}
          onChange={(event) => setConnectionId(event.target.value)}
          error={problems.connectionId}
          hint={mine.length === 0 ? 'This team has no connections yet: add one on the Connections screen.' : undefined}
        >
          <option value="">Choose a connection</option>
          {mine.map((connection) => (
            <option key={connection.id} value={connection.id}>
              {connection.name} ({connection.provider})
            </option>
          ))}
        </SelectInput>
      )}
      <TextInput label="Model" id="wording-model" value={model} onChange={(event) => setModel(event.target.value)} error={problems.model} hint="For example gpt-4o-mini." />
      <button type="submit" className="button button--primary" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save wording'}
      </button>
      <FormError error={save.error} />
      {save.isSuccess && !save.isPending && (
        <p className="alert alert--success" role="status">
          {save.data.enabled ? `Tips will be worded by ${save.data.model}.` : 'Tips will be written from templates.'}
        </p>
      )}
    </form>
  );
}

export function AdvisorWordingSettings({ teamId }: { teamId: string }) {
  const setting = useQuery(advisorWordingQuery(teamId));
  if (setting.isPending) return <LoadingState label="Loading the wording setting…" />;
  if (setting.isError) return <ErrorState error={setting.error} onRetry={() => setting.refetch()} retrying={setting.isRefetching} />;
  return <WordingForm key={teamId} setting={setting.data} />;
}
