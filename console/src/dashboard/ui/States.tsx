/**
 * What a screen shows while its data loads and when loading it failed. The error state
 * says the server's message (spec §8) and offers Retry, which calls the query's refetch.
 *
 * @example
 *   if (query.isPending) return <LoadingState label="Loading connections…" />;
 *   if (query.isError) return <ErrorState error={query.error} onRetry={() => query.refetch()} />;
 */
import { Spinner } from '../../shared/ui/Spinner.tsx';
import { Icon } from '../../shared/ui/Icon.tsx';

export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state--loading">
      <Spinner label={label} />
      <p className="state__text" aria-hidden="true">
        {label}
      </p>
    </div>
  );
}

export function ErrorState({
  error,
  title = 'Something went wrong',
  onRetry,
  retrying = false,
}: {
  /** The failure; its message is shown (ApiError carries the server's). */
  error: unknown;
  title?: string;
  onRetry: () => unknown;
  /** True while the retry runs: the button waits. */
  retrying?: boolean;
}) {
  const message = error instanceof Error && error.message ? error.message : 'Please try again.';
  return (
    <section className="state state--error" role="alert">
      <span className="state__icon" aria-hidden="true">
        <Icon name="bell" size={24} />
      </span>
      <h2 className="state__title">{title}</h2>
      <p className="state__text">{message}</p>
      <button type="button" className="button button--ghost button--small" onClick={() => onRetry()} disabled={retrying}>
        {retrying ? 'Retrying…' : 'Retry'}
      </button>
    </section>
  );
}
