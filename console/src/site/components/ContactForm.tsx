/**
 * The dynamic contact form (spec §3–§5): its fields come from GET /contact-form/.
 * Required and maxlength rules follow the definition. While sending, the button is
 * disabled and reads 'Submitting...'; success shows the server's message and clears
 * the fields; failure lists the errors.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { type CSSProperties, type FormEvent, useState } from 'react';
import { ContactFormRejected, submitContactFormMutation } from '../../api/contact-form/mutations.ts';
import { contactFormDefinitionQuery } from '../../api/contact-form/queries.ts';
import type { ContactFormValues, FormFieldDefinition } from '../../api/contact-form/types.ts';
import { Spinner } from '../../shared/ui/Spinner.tsx';

export const DEFAULT_TEXTAREA_ROWS = 4;
export const DEFAULT_SUBMIT_STYLE: CSSProperties = { backgroundColor: '#7c3aed', color: '#ffffff', minWidth: '100%' };

const isVisible = (field: FormFieldDefinition) => field.settings?.visible !== false;
const isRequired = (field: FormFieldDefinition) => field.settings?.validation_rules?.required?.value === true;
const fieldName = (field: FormFieldDefinition) => field.attributes?.name ?? field.uniqElKey ?? field.element;
const numberOrUndefined = (value: number | string | null | undefined) => {
  const parsed = Number(value);
  return value === null || value === undefined || value === '' || !Number.isFinite(parsed) || parsed <= 0 ? undefined : parsed;
};

/** The fields that hold a value, with input_name split into its visible parts. */
export function valueFields(fields: FormFieldDefinition[]): FormFieldDefinition[] {
  return fields.filter(isVisible).flatMap((field) => {
    if (field.element === 'custom_submit_button') return [];
    if (field.element === 'input_name' && field.fields) return Object.values(field.fields).filter(isVisible);
    return [field];
  });
}

export function emptyValues(fields: FormFieldDefinition[]): ContactFormValues {
  return Object.fromEntries(valueFields(fields).map((field) => [fieldName(field), '']));
}

interface ControlProps {
  field: FormFieldDefinition;
  value: string;
  onChange: (name: string, value: string) => void;
}

function Control({ field, value, onChange }: ControlProps) {
  const name = fieldName(field);
  const common = {
    id: `contact-${name}`,
    name,
    value,
    required: isRequired(field),
    placeholder: field.attributes?.placeholder,
    maxLength: numberOrUndefined(field.attributes?.maxlength),
    'aria-describedby': field.settings?.help_message ? `contact-${name}-help` : undefined,
  };
  switch (field.element) {
    case 'textarea':
      return (
        <textarea
          {...common}
          rows={numberOrUndefined(field.attributes?.rows) ?? DEFAULT_TEXTAREA_ROWS}
          cols={numberOrUndefined(field.attributes?.cols)}
          onChange={(event) => onChange(name, event.target.value)}
        />
      );
    case 'select':
      return (
        <select {...common} onChange={(event) => onChange(name, event.target.value)}>
          <option value="">{field.attributes?.placeholder || '- Select -'}</option>
          {(field.settings?.advanced_options ?? []).map((option) => (
            <option key={option.id ?? option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    default:
      return (
        <input
          {...common}
          type={field.element === 'input_email' ? 'email' : (field.attributes?.type ?? 'text')}
          autoComplete={field.element === 'input_email' ? 'email' : undefined}
          onChange={(event) => onChange(name, event.target.value)}
        />
      );
  }
}

function Field({ field, value, onChange }: ControlProps) {
  const name = fieldName(field);
  const { label, prefix_label: prefix, suffix_label: suffix, help_message: help, container_class: containerClass } = field.settings ?? {};
  return (
    <div className={['form-field', containerClass].filter(Boolean).join(' ')}>
      {label && (
        <label htmlFor={`contact-${name}`} className="form-field__label">
          {label}
          {isRequired(field) && <span className="form-field__required"> *</span>}
        </label>
      )}
      <div className={prefix || suffix ? 'form-field__group' : undefined}>
        {prefix && <span className="form-field__affix">{prefix}</span>}
        <Control field={field} value={value} onChange={onChange} />
        {suffix && <span className="form-field__affix">{suffix}</span>}
      </div>
      {help && (
        <p id={`contact-${name}-help`} className="form-field__help">
          {help}
        </p>
      )}
    </div>
  );
}

function SubmitButton({ field, submitting }: { field?: FormFieldDefinition; submitting: boolean }) {
  const [hovered, setHovered] = useState(false);
  const settings = field?.settings;
  const style = { ...DEFAULT_SUBMIT_STYLE, ...settings?.normal_styles, ...(hovered && !submitting ? settings?.hover_styles : {}) };
  return (
    <button
      type="submit"
      className="button contact-form__submit"
      style={style}
      disabled={submitting}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
    >
      {submitting ? 'Submitting...' : settings?.button_ui?.text || 'Submit'}
    </button>
  );
}

type Outcome = { kind: 'sent'; message: string } | { kind: 'rejected'; lines: string[] } | null;

export function DynamicForm({ fields }: { fields: FormFieldDefinition[] }) {
  const [values, setValues] = useState<ContactFormValues>(() => emptyValues(fields));
  const [outcome, setOutcome] = useState<Outcome>(null);
  const submission = useMutation(submitContactFormMutation());
  const setValue = (name: string, value: string) => setValues((current) => ({ ...current, [name]: value }));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setOutcome(null);
    submission.mutate(values, {
      onSuccess: (message) => {
        setOutcome({ kind: 'sent', message });
        setValues(emptyValues(fields));
      },
      onError: (error) => setOutcome({ kind: 'rejected', lines: error instanceof ContactFormRejected ? error.lines : [error.message] }),
    });
  };

  const visible = fields.filter(isVisible);
  const submitField = visible.find((field) => field.element === 'custom_submit_button');
  return (
    <form className="contact-form" onSubmit={submit} aria-label="Contact form">
      {visible.map((field) => {
        if (field.element === 'custom_submit_button') return null;
        const key = field.uniqElKey ?? fieldName(field);
        if (field.element === 'input_name' && field.fields) {
          return (
            <div key={key} className="form-row">
              {Object.values(field.fields)
                .filter(isVisible)
                .map((part) => (
                  <Field key={fieldName(part)} field={part} value={values[fieldName(part)] ?? ''} onChange={setValue} />
                ))}
            </div>
          );
        }
        return <Field key={key} field={field} value={values[fieldName(field)] ?? ''} onChange={setValue} />;
      })}
      {outcome?.kind === 'sent' && (
        <p className="alert alert--success" role="status">
          {outcome.message}
        </p>
      )}
      {outcome?.kind === 'rejected' && (
        <ul className="alert alert--error" role="alert">
          {outcome.lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <SubmitButton field={submitField} submitting={submission.isPending} />
    </form>
  );
}

/** The contact form as the site shows it: a spinner until its definition is loaded. */
export function ContactForm() {
  const definition = useQuery(contactFormDefinitionQuery());
  if (!definition.data) return <Spinner label="Loading the form…" />;
  return <DynamicForm fields={definition.data.fields} />;
}
