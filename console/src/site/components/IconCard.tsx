// A card of the marketing pages: an icon, a title and a line of text.
import type { ReactNode } from 'react';
import { Icon, type IconName } from '../../shared/ui/Icon.tsx';

export interface IconCardContent {
  icon: IconName;
  title: string;
  text: string;
}

export function IconCard({ icon, title, text, className = 'feature-card', children }: IconCardContent & { className?: string; children?: ReactNode }) {
  return (
    <article className={className}>
      {children}
      <span className="feature-card__icon">
        <Icon name={icon} />
      </span>
      <h3>{title}</h3>
      <p>{text}</p>
    </article>
  );
}
