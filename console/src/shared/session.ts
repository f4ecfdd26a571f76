/**
 * The signed-in session as the browser keeps it: the token under localStorage 'token'
 * and the user beside it under 'user'. Signed in means a token is present. The site and
 * the dashboard are separate bundles, so changes are announced with a window event
 * (and the storage event for other tabs) rather than through shared module state.
 */
import { useSyncExternalStore } from 'react';

const TOKEN_KEY = 'token';
const USER_KEY = 'user';
const SESSION_EVENT = 'spendgate:session';

export interface SessionUser {
  id: string;
  email: string;
  name?: string;
  avatar?: string | null;
  /** False until the account's e-mail is confirmed: such a session opens only /verify and the profile. */
  emailVerified?: boolean;
}

export interface Session {
  token: string | null;
  user: SessionUser | null;
}

export function readToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

/** The signed-in user as stored beside the token. */
export function readUser(): SessionUser | null {
  const stored = localStorage.getItem(USER_KEY);
  if (!stored) return null;
  try {
    return JSON.parse(stored) as SessionUser;
  } catch {
    return null;
  }
}

export function saveSession(token: string, user: SessionUser): void {
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(USER_KEY, JSON.stringify(user));
  window.dispatchEvent(new Event(SESSION_EVENT));
}

export function clearSession(): void {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(USER_KEY);
  window.dispatchEvent(new Event(SESSION_EVENT));
}

export const isSignedIn = (): boolean => readToken() !== null;

// useSyncExternalStore needs a stable snapshot: rebuild it only when storage changed.
let snapshot: Session = { token: null, user: null };
let snapshotSource = '';

function getSnapshot(): Session {
  const token = readToken();
  const storedUser = localStorage.getItem(USER_KEY) ?? '';
  const source = `${token ?? ''}\n${storedUser}`;
  if (source !== snapshotSource) {
    snapshotSource = source;
    snapshot = { token, user: readUser() };
  }
  return snapshot;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener(SESSION_EVENT, onChange);
  window.addEventListener('storage', onChange);
  return () => {
    window.removeEventListener(SESSION_EVENT, onChange);
    window.removeEventListener('storage', onChange);
  };
}

/** The current session, re-rendering on sign-in and sign-out from either bundle. */
export function useSession(): Session {
  return useSyncExternalStore(subscribe, getSnapshot);
}
