/**
 * A labelled form control of a dashboard form with its hint and its problem: the control
 * is marked aria-invalid and described by the message, so screen readers say why.
 *
 * @example
 *   <TextInput label="Team name" id="team-name" value={name} onChange={…} error={problems.name} />
 *   <SelectInput label="Role" id="invite-role" value={role} onChange={…}>
 *     <option value="MEMBER">Member</option>
 *   </SelectInput>
 */
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

interface FieldProps {
  label: string;
  id: string;
  /** Shown under the control when there is no problem. */
  hint?: ReactNode;
  /** What is wrong with the value, if anything. */
  error?: string | undefined;
}

function describedBy(id: string, hint: ReactNode, error: string | undefined): string | undefined {
  if (error) return `${id}-error`;
  return hint ? `${id}-hint` : undefined;
}

function FieldFrame({ label, id, hint, error, children }: FieldProps & { children: ReactNode }) {
  return (
    <div className="form-field">
      <label className="form-field__label" htmlFor={id}>
        {label}
      </label>
      {children}
      {error ? (
        <p id={`${id}-error`} className="form-field__error">
          {error}
        </p>
      ) : (
        hint && (
          <p id={`${id}-hint`} className="form-field__help">
            {hint}
          </p>
        )
      )}
    </div>
  );
}

export function TextInput({ label, id, hint, error, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <FieldFrame label={label} id={id} hint={hint} error={error}>
      <input id={id} name={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} {...input} />
    </FieldFrame>
  );
}

export function SelectInput({ label, id, hint, error, children, ...select }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <FieldFrame label={label} id={id} hint={hint} error={error}>
      <select id={id} name={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} {...select}>
        {children}
      </select>
    </FieldFrame>
  );
}
