/**
 * Whether a CSS media query matches, following changes (a window resized, a phone
 * turned). NARROW_QUERY is the dashboard's one breakpoint, the same as its CSS's.
 */
import { useCallback, useSyncExternalStore } from 'react';

export const NARROW_QUERY = '(max-width: 767.98px)';

export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const media = window.matchMedia(query);
      media.addEventListener('change', onChange);
      return () => media.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches, () => false);
}
