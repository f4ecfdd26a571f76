// Issued keys as /api/synthetic-group answers them: a group's keys (GET /synthetic-group/{id}),
// a new key with its plaintext (shown once), a changed and a revoked key.
import type { KeySettings, ModelOverride } from '@spendgate/core';

export type { KeySettings, ModelOverride };

export const KEY_KINDS = ['byok', 'optimised', 'byom'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export interface IssuedKey {
  id: string;
  groupId: string;
  connectionId: string | null;
  kind: KeyKind;
  name: string;
  /** The start of the key, to recognise it. */
  prefix: string;
  settings: KeySettings;
  createdAt: string;
}

/** A key as a group lists it: with when it last served a request (null: never). */
export interface ListedKey extends IssuedKey {
  lastUsedAt: string | null;
}

/** The group a key list comes from: its team (for connections and budgets) and its keys. */
export interface GroupWithKeys {
  id: string;
  teamId: string;
  name: string;
  /** Your effective role in the group; null when you have none. */
  role: string | null;
  syntheticGroupProviderKeys: ListedKey[];
}

/** `key` is the key itself: the one time it is shown. */
export interface CreatedKey {
  key: string;
  providerKey: IssuedKey;
}

export interface RevokedKey {
  id: string;
  groupId: string;
}

export interface NewKeyInput {
  name: string;
  kind: KeyKind;
  /** BYOK and BYOM keys use one of the team's connections; optimised keys take none. */
  connectionId?: string;
  settings?: KeySettings;
}

export interface KeyChanges {
  name?: string;
  settings?: KeySettings;
}
