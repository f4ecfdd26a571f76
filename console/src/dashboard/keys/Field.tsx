// A labelled form control with its help text and its error, tied together for assistive
// technology (aria-describedby, aria-invalid). The key and budget forms share it.
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';

export function Field({
  label,
  help,
  error,
  children,
}: {
  label: string;
  help?: ReactNode;
  error?: string | undefined;
  /** The control, given the id and the aria attributes to put on it. */
  children: (control: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode;
}) {
  const id = useId();
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [help ? helpId : '', error ? errorId : ''].filter(Boolean).join(' ');
  return (
    <div className="form-field">
      <label className="form-field__label" htmlFor={id}>
        {label}
      </label>
      {children({ id, ...(describedBy && { 'aria-describedby': describedBy }), ...(error && { 'aria-invalid': true as const }) })}
      {help && (
        <p id={helpId} className="form-field__help">
          {help}
        </p>
      )}
      {error && (
        <p id={errorId} className="form-field__error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A text input inside a Field. */
export function InputField({
  label,
  help,
  error,
  ...input
}: { label: string; help?: ReactNode; error?: string | undefined } & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>) {
  return (
    <Field label={label} help={help} error={error}>
      {(control) => <input {...input} {...control} />}
    </Field>
  );
}
