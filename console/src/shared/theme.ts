/**
 * The dashboard's colour theme, light or dark: the one the person chose (kept in
 * localStorage), else the system's (prefers-color-scheme). Every reader (the shell's
 * class, the charts' palette) follows a change at once, in every tab.
 *
 * @example
 *   const [theme, setTheme] = useTheme();
 *   setTheme(theme === 'light' ? 'dark' : 'light');
 */
import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';

export const THEME_STORAGE_KEY = 'spendgate.theme';

const DARK_QUERY = '(prefers-color-scheme: dark)';
const listeners = new Set<() => void>();
/** The last choice, for when storage is blocked. */
let chosenInMemory: Theme | undefined;

function systemTheme(): Theme {
  return typeof window.matchMedia === 'function' && window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

function storedTheme(): Theme | undefined {
  try {
    const value = window.localStorage.getItem(THEME_STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : undefined;
  } catch {
    return undefined; // storage blocked: the system's theme
  }
}

/** Chooses a theme and keeps it for the next visit. */
export function setTheme(theme: Theme): void {
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // storage blocked: the choice lasts until the page is left
  }
  chosenInMemory = theme;
  for (const listener of listeners) listener();
}

function currentTheme(): Theme {
  return storedTheme() ?? chosenInMemory ?? systemTheme();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const media = typeof window.matchMedia === 'function' ? window.matchMedia(DARK_QUERY) : undefined;
  const onStorage = (event: StorageEvent) => event.key === THEME_STORAGE_KEY && listener();
  media?.addEventListener('change', listener);
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    media?.removeEventListener('change', listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const theme = useSyncExternalStore(subscribe, currentTheme, () => 'light' as Theme);
  return [theme, setTheme];
}
