// The description box of the group forms: a labelled textarea with its hint or problem.
import { DESCRIPTION_MAX } from './validation.ts';

export function DescriptionField({ id, value, onChange, error, hint }: { id: string; value: string; onChange: (value: string) => void; error?: string | undefined; hint?: string }) {
  const described = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className="form-field">
      <label className="form-field__label" htmlFor={id}>
        Description
      </label>
      <textarea
        id={id}
        name={id}
        rows={3}
        value={value}
        maxLength={DESCRIPTION_MAX}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
      />
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
