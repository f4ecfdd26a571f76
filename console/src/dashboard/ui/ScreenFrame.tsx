// The frame of every dashboard screen (title, description, actions) and its empty state.
import type { ReactNode } from 'react';
import { Icon, type IconName } from '../../shared/ui/Icon.tsx';

export function ScreenFrame({ title, description, actions, children }: { title: string; description: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <main className="screen">
      <header className="screen__header">
        <div>
          <h1 className="screen__title">{title}</h1>
          <p className="screen__description">{description}</p>
        </div>
        {actions && <div className="screen__actions">{actions}</div>}
      </header>
      {children}
    </main>
  );
}

export function EmptyState({ icon, title, text, action }: { icon: IconName; title: string; text: string; action?: ReactNode }) {
  return (
    <section className="empty-state">
      <span className="empty-state__icon">
        <Icon name={icon} size={28} />
      </span>
      <h2>{title}</h2>
      <p>{text}</p>
      {action}
    </section>
  );
}
