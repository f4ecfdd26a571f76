// A full-page status screen (404, 502): code, message, Go Home and Go Back.
import { Link } from '@tanstack/react-router';

export function StatusScreen({ code, title, message }: { code: number; title?: string; message: string }) {
  return (
    <main className="status-screen" data-status={code}>
      <div className="status-screen__card">
        <p className="status-screen__code">{code}</p>
        {title && <h1 className="status-screen__title">{title}</h1>}
        <p className="status-screen__message">{message}</p>
        <div className="status-screen__actions">
          <Link to="/" className="button button--primary">
            Go Home
          </Link>
          <button type="button" className="button button--ghost" onClick={() => window.history.back()}>
            Go Back
          </button>
        </div>
      </div>
    </main>
  );
}
