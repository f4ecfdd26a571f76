// Issuing a key in a group: its name, its kind (BYOK on one of the team's provider
// connections, optimised and routed by Spendgate, BYOM on the team's own model endpoint)
// and optional limits, model overrides and routing. The new key is handed to `onIssued`, plaintext included.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { planTerms } from '@spendgate/core';
import { type FormEvent, useState } from 'react';
import { issueKeyMutation } from '../../api/keys/mutations.ts';
import { connectionsQuery } from '../../api/connections/queries.ts';
import type { Connection } from '../../api/connections/types.ts';
import { type CreatedKey, KEY_KINDS, type KeyKind } from '../../api/keys/types.ts';
import { teamSeatsQuery } from '../../api/team/queries.ts';
import { Field, InputField } from './Field.tsx';
import { KeySettingsFields } from './KeySettingsFields.tsx';
import { EMPTY_SETTINGS_FIELDS, type FieldErrors, KIND_LABELS, type NewKeyField, type NewKeyFields, otherConnections, readNewKey } from './key-form.ts';
import { keyKindTerms } from './plan-terms.ts';

/** The provider of a team's own model endpoint: the only connection a BYOM key can use. */
const SELF_HOSTED_PROVIDER = 'openai-compatible';

const KIND_HELP: Record<KeyKind, string> = {
  byok: 'Your own provider account: the provider bills you, Spendgate meters and caps.',
  optimised: 'Spendgate routes each request to the best model on its accounts.',
  byom: 'Your own model server (an OpenAI-compatible endpoint), billed a routing fee per request.',
};

/** The team's active connections a key of `kind` can use. */
function usableConnections(connections: Connection[], teamId: string, kind: KeyKind): Connection[] {
  return connections.filter(
    (connection) => connection.teamId === teamId && connection.status === 'active' && (kind !== 'byom' || connection.provider === SELF_HOSTED_PROVIDER),
  );
}

export function IssueKeyForm({ groupId, teamId, onIssued, onCancel }: { groupId: string; teamId: string; onIssued: (created: CreatedKey) => void; onCancel: () => void }) {
  const issue = useMutation(issueKeyMutation(useQueryClient(), groupId));
  const connections = useQuery(connectionsQuery());
  const [fields, setFields] = useState<NewKeyFields>({ ...EMPTY_SETTINGS_FIELDS, name: '', kind: 'byok', connectionId: '' });
  const [errors, setErrors] = useState<FieldErrors<NewKeyField>>({});
  const choices = usableConnections(connections.data ?? [], teamId, fields.kind);
  // The team's plan (spec §9) says what an optimised or BYOM key costs; the form works without it.
  const seats = useQuery(teamSeatsQuery(teamId));
  const plan = seats.data && planTerms(seats.data.planSlug);
  const costs = plan && keyKindTerms(fields.kind, plan, seats.data.paying);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { input, errors: problems } = readNewKey(fields);
    setErrors(problems);
    if (input) issue.mutate(input, { onSuccess: onIssued });
  };

  return (
    <form className="key-form" onSubmit={submit} aria-label="Issue a key" noValidate>
      <h3 className="key-form__title">Issue a key</h3>
      <InputField label="Name" required maxLength={200} value={fields.name} error={errors.name} onChange={(event) => setFields({ ...fields, name: event.target.value })} />
      <fieldset className="key-form__group">
        <legend>Kind</legend>
        <div className="key-kinds">
          {KEY_KINDS.map((kind) => (
            <label key={kind} className={`key-kind${fields.kind === kind ? ' is-selected' : ''}`}>
              <input type="radio" name="kind" value={kind} checked={fields.kind === kind} onChange={() => setFields({ ...fields, kind, connectionId: '' })} />
              <span className="key-kind__name">{KIND_LABELS[kind]}</span>
              <span className="key-kind__help">{KIND_HELP[kind]}</span>
            </label>
          ))}
        </div>
        {costs && <p className="form-field__help">{costs}</p>}
      </fieldset>
      {fields.kind !== 'optimised' && (
        <Field
          label="Connection"
          error={errors.connectionId}
          help={
            connections.isError ? (
              connections.error.message
            ) : connections.isSuccess && choices.length === 0 ? (
              <>
                {fields.kind === 'byom' ? 'No active connection to your own model endpoint yet. ' : 'No active provider connection yet. '}
                <Link to="/dashboard/ai-connection" className="text-link">
                  Connect a provider
                </Link>
              </>
            ) : undefined
          }
        >
          {(control) => (
            <select {...control} value={fields.connectionId} onChange={(event) => setFields({ ...fields, connectionId: event.target.value })}>
              <option value="">{connections.isPending ? 'Loading connections…' : 'Choose a connection'}</option>
              {choices.map((connection) => (
                <option key={connection.id} value={connection.id}>
                  {connection.name} ({connection.apiKeyTail ? `${connection.provider}, ${connection.apiKeyTail}` : connection.provider})
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <KeySettingsFields
        kind={fields.kind}
        fields={fields}
        errors={errors}
        planWeights={plan?.routingWeights}
        overrideConnections={otherConnections(connections.data ?? [], teamId, fields.connectionId || null)}
        onChange={(settings) => setFields({ ...fields, ...settings })}
      />
      {issue.error && (
        <p className="alert alert--error" role="alert">
          {issue.error.message}
        </p>
      )}
      <div className="key-form__actions">
        <button type="button" className="button button--ghost" onClick={onCancel} disabled={issue.isPending}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={issue.isPending}>
          {issue.isPending ? 'Issuing…' : 'Issue key'}
        </button>
      </div>
    </form>
  );
}
