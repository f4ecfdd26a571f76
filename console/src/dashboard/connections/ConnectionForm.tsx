/**
 * Adding or editing a connection: team (when the user manages several), provider, name,
 * API key, base URL and the provider's own options (GET /provider says which). "Test
 * connection" makes one cheap live call with the settings as typed — a stored
 * connection's key when an edit leaves the key empty — before anything is saved.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { createConnectionMutation, testConnectionMutation, updateConnectionMutation } from '../../api/connections/mutations.ts';
import type { Connection, ConnectionTestInput, Provider } from '../../api/connections/types.ts';
import type { Team } from '../../api/team/types.ts';
import {
  apiKeyRequired,
  type ConnectionErrors,
  type ConnectionField,
  type ConnectionValues,
  emptyValues,
  toChanges,
  toNewConnection,
  validateConnection,
  valuesOf,
} from './connection-form.ts';

function Field({ id, label, required, help, error, children }: { id: string; label: string; required?: boolean; help?: string; error?: string; children: ReactNode }) {
  return (
    <div className="form-field">
      <label className="form-field__label" htmlFor={id}>
        {label}
        {required && (
          <span className="form-field__required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children}
      {help && (
        <p className="form-field__help" id={`${id}-help`}>
          {help}
        </p>
      )}
      {error && (
        <p className="form-field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** aria attributes tying an input to its help and error texts. */
const described = (id: string, help: string | undefined, error: string | undefined) => ({
  'aria-invalid': error ? true : undefined,
  'aria-describedby': [help ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined,
});

export function ConnectionForm({
  providers,
  teams,
  connection,
  onSaved,
  onCancel,
}: {
  providers: Provider[];
  /** The teams the user may add connections to (team admins). */
  teams: Team[];
  /** The connection being edited; absent when adding one. */
  connection?: Connection;
  onSaved: (saved: Connection) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const create = useMutation(createConnectionMutation(queryClient));
  const update = useMutation(updateConnectionMutation(queryClient));
  const test = useMutation(testConnectionMutation());
  const mode = connection ? 'edit' : 'create';
  const [values, setValues] = useState<ConnectionValues>(() => (connection ? valuesOf(connection) : emptyValues(teams[0]?.id ?? '', providers[0]?.id ?? '')));
  const [errors, setErrors] = useState<ConnectionErrors>({});
  const [unchanged, setUnchanged] = useState(false);
  const formId = useId();
  const provider = providers.find((candidate) => candidate.id === values.provider);
  const saving = create.isPending || update.isPending;
  const saveError = create.error ?? update.error;

  const set = (field: 'teamId' | 'provider' | 'name' | 'apiKey' | 'baseUrl', value: string) => {
    setValues((previous) => ({ ...previous, [field]: value, ...(field === 'provider' ? { options: {} } : {}) }));
    setErrors((previous) => ({ ...previous, [field]: undefined }));
    setUnchanged(false);
    test.reset();
  };
  const setOption = (name: string, value: string) => {
    setValues((previous) => ({ ...previous, options: { ...previous.options, [name]: value } }));
    setErrors((previous) => ({ ...previous, [`options.${name}`]: undefined }));
    setUnchanged(false);
    test.reset();
  };

  const checked = (): boolean => {
    const found = validateConnection(values, provider, mode);
    setErrors(found);
    const first = Object.keys(found)[0] as ConnectionField | undefined;
    if (first) document.getElementById(`${formId}-${first}`)?.focus();
    return !first;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!checked()) return;
    if (!connection) {
      create.mutate(toNewConnection(values, provider), { onSuccess: onSaved });
      return;
    }
    const changes = toChanges(values, connection, provider);
    if (Object.keys(changes).length === 0) {
      setUnchanged(true);
      return;
    }
    update.mutate({ id: connection.id, changes }, { onSuccess: onSaved });
  };

  const runTest = () => {
    if (!checked()) return;
    const typed = toNewConnection(values, provider);
    const storedKey = connection && !typed.apiKey && (!typed.baseUrl || typed.baseUrl === connection.baseUrl);
    const input: ConnectionTestInput = storedKey
      ? { connectionId: connection.id }
      : { teamId: typed.teamId, provider: typed.provider, ...(typed.apiKey ? { apiKey: typed.apiKey } : {}), ...(typed.baseUrl ? { baseUrl: typed.baseUrl } : {}) };
    test.mutate(input);
  };
  // A new key is needed to test changed settings of a stored connection: the stored key never leaves the server with them.
  const testNeedsKey = Boolean(connection && !values.apiKey.trim() && values.baseUrl.trim() && values.baseUrl.trim() !== connection.baseUrl);
  const keyOptional = !apiKeyRequired(provider);

  const fieldId = (field: ConnectionField) => `${formId}-${field}`;
  const baseUrlHelp = provider
    ? provider.baseUrl.default
      ? `Leave empty to use ${provider.baseUrl.default}. ${provider.baseUrl.rules}.`
      : `Required for ${provider.name}. ${provider.baseUrl.rules}.`
    : undefined;
  const keyHelp = connection
    ? `Stored as ${connection.apiKeyTail}. Leave empty to keep it.`
    : keyOptional
      ? 'Optional: many self-hosted servers take no key.'
      : 'Kept encrypted; only its last four characters are shown again.';

  return (
    <form className="connection-form" onSubmit={submit} aria-label={connection ? `Edit ${connection.name}` : 'Add a connection'} noValidate>
      <h2 className="connection-form__title">{connection ? `Edit ${connection.name}` : 'Add a connection'}</h2>
      <div className="connection-form__grid">
        {!connection && teams.length > 1 && (
          <Field id={fieldId('teamId')} label="Team" required error={errors.teamId}>
            <select id={fieldId('teamId')} value={values.teamId} onChange={(event) => set('teamId', event.target.value)} {...described(fieldId('teamId'), undefined, errors.teamId)}>
              {teams.map((team) => (
                <option key={team.id} value={team.id}>
                  {team.name}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field id={fieldId('provider')} label="Provider" required error={errors.provider} help={connection ? 'A connection keeps its provider; add another connection to use a different one.' : undefined}>
          <select
            id={fieldId('provider')}
            value={values.provider}
            disabled={Boolean(connection)}
            onChange={(event) => set('provider', event.target.value)}
            {...described(fieldId('provider'), connection ? 'help' : undefined, errors.provider)}
          >
            {providers.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id={fieldId('name')} label="Name" required error={errors.name}>
          <input
            id={fieldId('name')}
            type="text"
            autoComplete="off"
            maxLength={200}
            placeholder={provider ? `${provider.name} production` : ''}
            value={values.name}
            onChange={(event) => set('name', event.target.value)}
            {...described(fieldId('name'), undefined, errors.name)}
          />
        </Field>
        <Field id={fieldId('apiKey')} label="API key" required={!connection && !keyOptional} help={keyHelp} error={errors.apiKey}>
          <input
            id={fieldId('apiKey')}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={values.apiKey}
            onChange={(event) => set('apiKey', event.target.value)}
            {...described(fieldId('apiKey'), keyHelp, errors.apiKey)}
          />
        </Field>
        <Field id={fieldId('baseUrl')} label="Base URL" required={provider?.baseUrl.required} help={baseUrlHelp} error={errors.baseUrl}>
          <input
            id={fieldId('baseUrl')}
            type="url"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder={provider?.baseUrl.default ?? 'https://'}
            value={values.baseUrl}
            onChange={(event) => set('baseUrl', event.target.value)}
            {...described(fieldId('baseUrl'), baseUrlHelp, errors.baseUrl)}
          />
        </Field>
        {provider?.optionFields.map((option) => {
          const id = fieldId(`options.${option.name}`);
          const error = errors[`options.${option.name}`];
          return (
            <Field key={option.name} id={id} label={option.label} help={option.help} error={error}>
              <input
                id={id}
                type="text"
                autoComplete="off"
                spellCheck={false}
                placeholder={option.placeholder}
                value={values.options[option.name] ?? ''}
                onChange={(event) => setOption(option.name, event.target.value)}
                {...described(id, option.help, error)}
              />
            </Field>
          );
        })}
      </div>

      <div className="connection-form__feedback" aria-live="polite">
        {test.isSuccess && (
          <p className="alert alert--success" role="status">
            Connection works: {provider?.name ?? test.data.provider} answered in {test.data.latencyMs} ms.
          </p>
        )}
        {test.isError && (
          <p className="alert alert--error" role="alert">
            {test.error.message}
          </p>
        )}
        {testNeedsKey && <p className="form-field__help">Enter the API key to test a new base URL.</p>}
        {unchanged && (
          <p className="alert alert--error" role="alert">
            Nothing to save: change a field first.
          </p>
        )}
        {saveError && (
          <p className="alert alert--error" role="alert">
            {saveError.message}
          </p>
        )}
      </div>

      <div className="connection-form__actions">
        <button type="button" className="button button--ghost" onClick={runTest} disabled={test.isPending || saving || testNeedsKey}>
          {test.isPending ? 'Testing…' : 'Test connection'}
        </button>
        <span className="connection-form__spacer" />
        <button type="button" className="button button--ghost" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={saving}>
          {saving ? 'Saving…' : connection ? 'Save changes' : 'Add connection'}
        </button>
      </div>
    </form>
  );
}
