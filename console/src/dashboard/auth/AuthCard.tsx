// The frame of the sign-in screens: a card beside a short product panel, plus the
// small form pieces those screens share.
import type { InputHTMLAttributes, ReactNode } from 'react';
import { Icon } from '../../shared/ui/Icon.tsx';

export function AuthCard({ title, subtitle, children, footer }: { title: string; subtitle?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <main className="auth">
      <section className="auth__card">
        <h1 className="auth__title">{title}</h1>
        {subtitle && <p className="auth__subtitle">{subtitle}</p>}
        {children}
        {footer && <div className="auth__footer">{footer}</div>}
      </section>
      <aside className="auth__panel" aria-hidden="true">
        <p className="auth__panel-title">Work at the Frontier of AI — with control.</p>
        <ul>
          <li>
            <Icon name="check" size={18} /> Every token, prompt and pound in one view
          </li>
          <li>
            <Icon name="check" size={18} /> Budgets and alerts before the bill arrives
          </li>
          <li>
            <Icon name="check" size={18} /> First 60 days free, no credit card
          </li>
        </ul>
      </aside>
    </main>
  );
}

/** A labelled input; a `hint` is shown under it and describes it. */
export function TextField({ label, id, hint, ...input }: { label: string; id: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="form-field">
      <label className="form-field__label" htmlFor={id}>
        {label}
      </label>
      <input id={id} name={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <p id={`${id}-hint`} className="form-field__help">
          {hint}
        </p>
      )}
    </div>
  );
}

export function FormError({ error }: { error: Error | null }) {
  if (!error) return null;
  return (
    <p className="alert alert--error" role="alert">
      {error.message}
    </p>
  );
}
