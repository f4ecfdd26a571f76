// Shows the notifications sent with notify() from either bundle, each for a few seconds.
import { useEffect, useState } from 'react';
import { type AppNotification, NOTIFY_EVENT } from '../../shared/notifications.ts';

const SHOWN_FOR_MS = 6_000;

export function Toaster() {
  const [notifications, setNotifications] = useState<AppNotification[]>([]);

  useEffect(() => {
    const show = (event: Event) => {
      const notification = (event as CustomEvent<AppNotification>).detail;
      setNotifications((shown) => [...shown.filter((n) => n.message !== notification.message), notification]);
      setTimeout(() => setNotifications((shown) => shown.filter((n) => n.id !== notification.id)), SHOWN_FOR_MS);
    };
    window.addEventListener(NOTIFY_EVENT, show);
    return () => window.removeEventListener(NOTIFY_EVENT, show);
  }, []);

  return (
    <div className="toaster" aria-live="assertive">
      {notifications.map((notification) => (
        <div key={notification.id} className={`toast toast--${notification.kind}`} role="alert">
          {notification.message}
          <button
            type="button"
            className="toast__close"
            aria-label="Dismiss"
            onClick={() => setNotifications((shown) => shown.filter((n) => n.id !== notification.id))}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
