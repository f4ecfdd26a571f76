// The settings part of the key forms: per-minute rate limits, the upstream timeout and,
// for optimised keys, the routing weights and fallback models. Read-only when `disabled`.
import { KEY_SETTING_LIMITS, type RoutingWeights } from '@spendgate/core';
import type { KeyKind } from '../../api/keys/types.ts';
import { InputField } from './Field.tsx';
import type { FieldErrors, KeySettingsFields as Fields } from './key-form.ts';

export function KeySettingsFields({
  kind,
  fields,
  errors,
  disabled = false,
  planWeights,
  onChange,
}: {
  kind: KeyKind;
  fields: Fields;
  errors: FieldErrors<keyof Fields>;
  disabled?: boolean;
  /** The weights of the team's plan, which apply while the key sets none. */
  planWeights?: RoutingWeights | undefined;
  onChange: (fields: Fields) => void;
}) {
  const bind = (field: keyof Fields) => ({
    value: fields[field],
    error: errors[field],
    disabled,
    onChange: (event: { target: { value: string } }) => onChange({ ...fields, [field]: event.target.value }),
  });
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
