// The settings part of the key forms: per-minute rate limits, the upstream timeout, the
// cap on output tokens, models sent in place of the ones asked for (BYOK: optionally
// through another of the team's connections) and, for optimised keys, the routing
// weights and fallback models. Read-only when `disabled`.
import { KEY_SETTING_LIMITS, type RoutingWeights } from '@spendgate/core';
import type { Connection } from '../../api/connections/types.ts';
import type { KeyKind } from '../../api/keys/types.ts';
import { Field, InputField } from './Field.tsx';
import { EMPTY_MODEL_OVERRIDE, type FieldErrors, type KeySettingsFields as Fields, type ModelOverrideFields, type SettingsField, type TextSettingsField } from './key-form.ts';

/** One model override's row: the model asked for, the model sent instead, and (BYOK) the connection that serves it. */
function ModelOverrideRow({
  index,
  row,
  errors,
  disabled,
  connections,
  onChange,
  onRemove,
}: {
  index: number;
  row: ModelOverrideFields;
  errors: FieldErrors<SettingsField>;
  disabled: boolean;
  /** The team's other connections a BYOK key may send through; undefined for other kinds. */
  connections: readonly Connection[] | undefined;
  onChange: (row: ModelOverrideFields) => void;
  onRemove: () => void;
}) {
  const error = (part: keyof ModelOverrideFields) => errors[`modelOverrides.${index}.${part}`];
  return (
    <fieldset className="key-override">
      <legend>Override {index + 1}</legend>
      <div className="form-row">
        <InputField
          label="Requested model"
          placeholder="e.g. gpt-4o"
          value={row.replace}
          error={error('replace')}
          disabled={disabled}
          onChange={(event) => onChange({ ...row, replace: event.target.value })}
        />
        <InputField
          label="Send instead"
          placeholder="e.g. gpt-4o-mini"
          value={row.with}
          error={error('with')}
          disabled={disabled}
          onChange={(event) => onChange({ ...row, with: event.target.value })}
        />
        {connections && (
          <Field label="Through connection" error={error('connectionId')}>
            {(control) => (
              <select {...control} value={row.connectionId} disabled={disabled} onChange={(event) => onChange({ ...row, connectionId: event.target.value })}>
                <option value="">This key’s connection</option>
                {connections.map((connection) => (
                  <option key={connection.id} value={connection.id}>
                    {connection.name} ({connection.provider})
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
      {!disabled && (
        <button type="button" className="button button--ghost button--small key-form__row-action" onClick={onRemove}>
          Remove override {index + 1}
        </button>
      )}
    </fieldset>
  );
}

export function KeySettingsFields({
  kind,
  fields,
  errors,
  disabled = false,
  planWeights,
  overrideConnections,
  onChange,
}: {
  kind: KeyKind;
  fields: Fields;
  errors: FieldErrors<SettingsField>;
  disabled?: boolean;
  /** The weights of the team's plan, which apply while the key sets none. */
  planWeights?: RoutingWeights | undefined;
  /** The team's connections, other than the key's own, that a BYOK key's model override may go through. */
  overrideConnections: readonly Connection[];
  onChange: (fields: Fields) => void;
}) {
  const bind = (field: TextSettingsField) => ({
    value: fields[field],
    error: errors[field],
    disabled,
    onChange: (event: { target: { value: string } }) => onChange({ ...fields, [field]: event.target.value }),
  });
  const overrides = fields.modelOverrides;
  const setOverrides = (modelOverrides: ModelOverrideFields[]) => onChange({ ...fields, modelOverrides });
  return (
    <>
      <fieldset className="key-form__group">
        <legend>Limits</legend>
        <div className="form-row">
          <InputField label="Requests per minute" inputMode="numeric" placeholder="No limit" {...bind('requestsPerMinute')} />
          <InputField label="Tokens per minute" inputMode="numeric" placeholder="No limit" {...bind('tokensPerMinute')} />
          <InputField
            label="Timeout (ms)"
            inputMode="numeric"
            placeholder="Gateway default"
            help={`${KEY_SETTING_LIMITS.minTimeoutMs.toLocaleString('en-GB')} to ${KEY_SETTING_LIMITS.maxTimeoutMs.toLocaleString('en-GB')} ms`}
            {...bind('timeoutMs')}
          />
        </div>
        <InputField
          label="Max output tokens"
          inputMode="numeric"
          placeholder="The caller's limit"
          help={`Every answer at most this many tokens: a larger max_tokens is lowered to it, a request without one gets it, and budgets reserve it. 1 to ${KEY_SETTING_LIMITS.maxOutputTokens.toLocaleString('en-GB')}.`}
          {...bind('maxOutputTokens')}
        />
      </fieldset>
      <fieldset className="key-form__group">
        <legend>Model overrides</legend>
        <p className="form-field__help">
          Requests for a model are sent as another, and priced, metered and recorded as the model that served them
          {kind === 'byok' ? ', through this key’s connection or another of your team’s' : ''}. At most {KEY_SETTING_LIMITS.maxModelOverrides}.
        </p>
        {overrides.length === 0 && disabled && <p className="form-field__help">None: every model is sent as asked.</p>}
        {overrides.map((row, index) => (
          <ModelOverrideRow
            // biome-ignore lint/suspicious/noArrayIndexKey: a row has no identity but its place (removing one re-renders those after it).
            key={index}
            index={index}
            row={row}
            errors={errors}
            disabled={disabled}
            connections={kind === 'byok' ? overrideConnections : undefined}
            onChange={(changed) => setOverrides(overrides.map((other, at) => (at === index ? changed : other)))}
            onRemove={() => setOverrides(overrides.filter((_, at) => at !== index))}
          />
        ))}
        {!disabled && overrides.length < KEY_SETTING_LIMITS.maxModelOverrides && (
          <button type="button" className="button button--ghost button--small key-form__row-action" onClick={() => setOverrides([...overrides, EMPTY_MODEL_OVERRIDE])}>
            Add a model override
          </button>
        )}
      </fieldset>
      {kind === 'optimised' && (
        <fieldset className="key-form__group">
          <legend>Routing</legend>
          <p className="form-field__help">
            How the router weighs each model when the request says model "auto". Empty: your plan's weights
            {planWeights ? ` (cost ${planWeights.cost}, speed ${planWeights.speed}, accuracy ${planWeights.accuracy})` : ''}.
          </p>
          <div className="form-row">
            <InputField label="Cost weight" inputMode="decimal" placeholder="Plan default" {...bind('weightCost')} />
            <InputField label="Speed weight" inputMode="decimal" placeholder="Plan default" {...bind('weightSpeed')} />
            <InputField label="Accuracy weight" inputMode="decimal" placeholder="Plan default" {...bind('weightAccuracy')} />
          </div>
          <InputField
            label="Fallback models"
            placeholder="e.g. gpt-4o-mini, claude-haiku-4-5"
            help={`Tried in order when the requested model fails; at most ${KEY_SETTING_LIMITS.maxFallbacks}, separated by commas.`}
            {...bind('fallbacks')}
          />
        </fieldset>
      )}
    </>
  );
}
