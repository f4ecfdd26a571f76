/**
 * The dashboard's one badge: a short label beside what it qualifies (a role, a status,
 * "Estimated"). Its tone says how it reads; where it sits is its container's business.
 *
 * @example <Badge tone="good">Active</Badge>
 */
import type { ReactNode } from 'react';
import './badge.css';

/** neutral: outlined; good, warning, danger: a status; brand: a plan's or role's own. */
export type BadgeTone = 'neutral' | 'good' | 'warning' | 'danger' | 'brand';

export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ReactNode }) {
  return <span className={`badge badge--${tone}`}>{children}</span>;
}
