/**
 * Notifications (toasts): anything in the site or the dashboard bundle calls notify();
 * the site's <Toaster> shows them. A window event carries them between bundles.
 */
export type NotificationKind = 'info' | 'success' | 'error';

export interface AppNotification {
  id: number;
  kind: NotificationKind;
  message: string;
}

export const NOTIFY_EVENT = 'spendgate:notify';

let nextId = 1;

export function notify(message: string, kind: NotificationKind = 'info'): void {
  const notification: AppNotification = { id: nextId++, kind, message };
  window.dispatchEvent(new CustomEvent<AppNotification>(NOTIFY_EVENT, { detail: notification }));
}
