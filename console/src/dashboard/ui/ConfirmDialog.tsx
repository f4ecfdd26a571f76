/**
 * A modal question before an action that cannot be undone (delete, revoke, remove).
 * Focus moves into it and stays there (Tab cycles), Escape or the backdrop cancels,
 * and focus returns to what had it when it closes. The caller gives the labels and
 * says when the action runs (`busy`) or failed (`error`, the server's message).
 *
 * @example
 *   {revoking && (
 *     <ConfirmDialog title="Revoke this key?" confirmLabel="Revoke key" destructive
 *       busy={revoke.isPending} error={revoke.error?.message}
 *       onConfirm={() => revoke.mutate(key.id)} onCancel={() => setRevoking(false)}>
 *       Requests made with it will be refused at once.
 *     </ConfirmDialog>
 *   )}
 */
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  destructive = false,
  busy = false,
  error,
  onConfirm,
  onCancel,
}: {
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** The confirm button is red: the action deletes or revokes something. */
  destructive?: boolean;
  busy?: boolean;
  error?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDivElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const textId = useId();

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    cancelButton.current?.focus();
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
      opener?.focus();
    };
  }, []);

  function keepFocusInside(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === 'Escape') {
      event.stopPropagation();
      if (!busy) onCancel();
      return;
    }
    if (event.key !== 'Tab' || !dialog.current) return;
    const focusable = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return (
    <div className="confirm">
      <div className="confirm__backdrop" aria-hidden="true" onClick={() => !busy && onCancel()} />
      <div
        ref={dialog}
        className="confirm__dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={children ? textId : undefined}
        onKeyDown={keepFocusInside}
      >
        <h2 id={titleId} className="confirm__title">
          {title}
        </h2>
        {children && (
          <div id={textId} className="confirm__text">
            {children}
          </div>
        )}
        {error && (
          <p className="alert alert--error" role="alert">
            {error}
          </p>
        )}
        <div className="confirm__actions">
          <button ref={cancelButton} type="button" className="button button--ghost" onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </button>
          <button type="button" className={`button ${destructive ? 'button--danger' : 'button--primary'}`} onClick={onConfirm} disabled={busy} aria-busy={busy}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
