// The form that sets a budget's amount, window, mode and alert thresholds, for a new
// budget or an existing one. It checks the fields before anything is sent.
import { type FormEvent, useState } from 'react';
import { BUDGET_MODES, BUDGET_WINDOWS } from '@spendgate/core';
import type { BudgetMode, BudgetWindow } from '../../api/budgets/types.ts';
import { Field, InputField } from '../keys/Field.tsx';
import { type BudgetFieldErrors, type BudgetFields, type BudgetValues, MAX_ALERTS, MODE_LABELS, readBudgetForm, WINDOW_LABELS } from './budget-form.ts';

export function BudgetForm({
  title,
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  title: string;
  initial: BudgetFields;
  submitLabel: string;
  busy: boolean;
  error: Error | null;
  onSubmit: (values: BudgetValues) => void;
  onCancel: () => void;
}) {
  const [fields, setFields] = useState(initial);
  const [errors, setErrors] = useState<BudgetFieldErrors>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { values, errors: problems } = readBudgetForm(fields);
    setErrors(problems);
    if (values) onSubmit(values);
  };

  return (
    <form className="budget-form" onSubmit={submit} aria-label={title} noValidate>
      <h4 className="budget-form__title">{title}</h4>
      <div className="form-row">
        <Field label="Amount (£)" error={errors.amount} help="Up to £1,000,000,000, to the millionth of a pound.">
          {(control) => (
            <div className="form-field__group">
              <span className="form-field__affix" aria-hidden="true">
                £
              </span>
              <input {...control} inputMode="decimal" required value={fields.amount} onChange={(event) => setFields({ ...fields, amount: event.target.value })} />
            </div>
          )}
        </Field>
        <Field label="Window">
          {(control) => (
            <select {...control} value={fields.window} onChange={(event) => setFields({ ...fields, window: event.target.value as BudgetWindow })}>
              {BUDGET_WINDOWS.map((window) => (
                <option key={window} value={window}>
                  {WINDOW_LABELS[window]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Mode" help={fields.mode === 'hard' ? 'Requests that would pass the cap are refused (402).' : fields.mode === 'soft' ? 'Only counts and alerts; nothing is refused.' : 'Once spent, requests go to a cheaper model of the same family.'}>
          {(control) => (
            <select {...control} value={fields.mode} onChange={(event) => setFields({ ...fields, mode: event.target.value as BudgetMode })}>
              {BUDGET_MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {MODE_LABELS[mode]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <InputField
        label="Alert at (% of the amount)"
        help={`Whole percentages separated by commas, at most ${MAX_ALERTS}; empty for no alerts.`}
        value={fields.alertAt}
        error={errors.alertAt}
        onChange={(event) => setFields({ ...fields, alertAt: event.target.value })}
      />
      {error && (
        <p className="alert alert--error" role="alert">
          {error.message}
        </p>
      )}
      <div className="key-form__actions">
        <button type="button" className="button button--ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
