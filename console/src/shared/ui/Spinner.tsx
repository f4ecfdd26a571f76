// A loading spinner; `page` centres it in the space a screen would take.
export function Spinner({ label = 'Loading…', page = false }: { label?: string; page?: boolean }) {
  return (
    <div className={page ? 'spinner spinner--page' : 'spinner'} role="status" aria-live="polite">
      <span className="spinner__ring" aria-hidden="true" />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}
