// A modal dialog with a title and a close button; Escape and the backdrop close it too.
import { type ReactNode, useEffect } from 'react';

export function Modal({ title, subtitle, onClose, children }: { title: string; subtitle?: string; onClose: () => void; children: ReactNode }) {
  useEffect(() => {
    const closeOnEscape = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', closeOnEscape);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('keydown', closeOnEscape);
      document.body.style.overflow = overflow;
    };
  }, [onClose]);

  return (
    <div className="modal">
      <button type="button" className="modal__backdrop" aria-label="Close" tabIndex={-1} onClick={onClose} />
      <div className="modal__dialog" role="dialog" aria-modal="true" aria-labelledby="modal-title">
        <button type="button" className="modal__close" aria-label="Close" onClick={onClose}>
          ×
        </button>
        <h2 id="modal-title" className="modal__title">
          {title}
        </h2>
        {subtitle && <p className="modal__subtitle">{subtitle}</p>}
        {children}
      </div>
    </div>
  );
}
