// What a public page shows when its data could not be loaded.
import { type ErrorComponentProps, useRouter } from '@tanstack/react-router';

export function PageError({ error }: ErrorComponentProps) {
  const router = useRouter();
  return (
    <main className="page-error" role="alert">
      <h1>This page could not be loaded</h1>
      <p>{error instanceof Error ? error.message : 'Please try again in a moment.'}</p>
      <button type="button" className="button button--primary" onClick={() => void router.invalidate()}>
        Try again
      </button>
    </main>
  );
}
