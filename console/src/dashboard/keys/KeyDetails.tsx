// One key opened from the group's list: its name and settings (editable by those who
// manage the group's keys; others read them) and the budgets on the key.
import { planTerms } from '@spendgate/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { connectionsQuery } from '../../api/connections/queries.ts';
import { updateKeyMutation } from '../../api/keys/mutations.ts';
import type { ListedKey } from '../../api/keys/types.ts';
import { teamSeatsQuery } from '../../api/team/queries.ts';
import { KeyBudget } from '../budgets/BudgetEntries.tsx';
import { InputField } from './Field.tsx';
import { KeySettingsFields } from './KeySettingsFields.tsx';
import { type FieldErrors, type KeySettingsFields as SettingsFields, otherConnections, readKeyName, readKeySettings, type SettingsField, settingsFieldsFrom } from './key-form.ts';

export function KeyDetails({ apiKey, teamId, canManage, canManageBudgets }: { apiKey: ListedKey; teamId: string; canManage: boolean; canManageBudgets: boolean }) {
  const update = useMutation(updateKeyMutation(useQueryClient()));
  // The plan's routing weights apply to an optimised key that sets none.
  const seats = useQuery({ ...teamSeatsQuery(teamId), enabled: apiKey.kind === 'optimised' });
  // A BYOK key's model overrides may go through another of the team's connections.
  const connections = useQuery({ ...connectionsQuery(), enabled: apiKey.kind === 'byok' });
  const [name, setName] = useState(apiKey.name);
  const [fields, setFields] = useState<SettingsFields>(() => settingsFieldsFrom(apiKey.settings));
  const [errors, setErrors] = useState<FieldErrors<SettingsField | 'name'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { settings, errors: problems } = readKeySettings(fields, apiKey.kind);
    const { name: trimmed, error: nameError } = readKeyName(name);
    const allProblems: typeof errors = { ...problems, ...(nameError && { name: nameError }) };
    setErrors(allProblems);
    if (Object.keys(allProblems).length === 0) update.mutate({ id: apiKey.id, changes: { name: trimmed, settings } });
  };

  return (
    <div className="key-details">
      <form className="key-form" onSubmit={submit} aria-label={`Settings of ${apiKey.name}`} noValidate>
        <h3 className="key-form__title">Settings</h3>
        {!canManage && <p className="form-field__help">Read only: a group admin or maintainer changes a key's settings.</p>}
        <fieldset className="key-form__plain" disabled={!canManage}>
          <InputField label="Key name" maxLength={200} value={name} error={errors.name} onChange={(event) => setName(event.target.value)} />
          <KeySettingsFields
            kind={apiKey.kind}
            fields={fields}
            errors={errors}
            disabled={!canManage}
            planWeights={seats.data && planTerms(seats.data.planSlug).routingWeights}
            overrideConnections={otherConnections(connections.data ?? [], teamId, apiKey.connectionId)}
            onChange={setFields}
          />
        </fieldset>
        {update.error && (
          <p className="alert alert--error" role="alert">
            {update.error.message}
          </p>
        )}
        {update.isSuccess && !update.isPending && (
          <p className="alert alert--success" role="status">
            Settings saved. Gateways apply them to the next request.
          </p>
        )}
        {canManage && (
          <div className="key-form__actions">
            <button type="submit" className="button button--primary" disabled={update.isPending}>
              {update.isPending ? 'Saving…' : 'Save settings'}
            </button>
          </div>
        )}
      </form>
      <KeyBudget keyId={apiKey.id} keyName={apiKey.name} canManage={canManageBudgets} />
    </div>
  );
}
