/**
 * Spec §4's provider-connection transitions, applied to the cached list (the open
 * connection is the list entry the URL names, so updating the list updates it too):
 * a status change applies the returned id and status; an update replaces the matching
 * entry; a deletion removes it; a creation adds it (the screen then opens it).
 */
import type { Connection, ListedConnection } from './types.ts';

/** An edited connection keeps its month's usage; a new one has none to show until the list is read again. */
const withMonth = (connection: Connection, previous?: ListedConnection): ListedConnection => ({ ...connection, thisMonth: previous?.thisMonth ?? null });

export function applyStatus(list: ListedConnection[] | undefined, changed: { id: string; status: string }): ListedConnection[] | undefined {
  return list?.map((connection) => (connection.id === changed.id ? { ...connection, status: changed.status } : connection));
}

export function replaceConnection(list: ListedConnection[] | undefined, updated: Connection): ListedConnection[] | undefined {
  return list?.map((connection) => (connection.id === updated.id ? withMonth(updated, connection) : connection));
}

export function removeConnection(list: ListedConnection[] | undefined, id: string): ListedConnection[] | undefined {
  return list?.filter((connection) => connection.id !== id);
}

export function addConnection(list: ListedConnection[] | undefined, created: Connection): ListedConnection[] {
  return [...(list ?? []).filter((connection) => connection.id !== created.id), withMonth(created)];
}
