/**
 * Request bodies' fingerprints for the duplicate-requests detector: HMAC-SHA256 under the
 * team's own body-hash key (derived from the master key by store's envelope, kept only in
 * memory), hex — equal bodies match within a team, never across teams or against a guess.
 * A batch is hashed after the turn of the event loop that handed it over, in slices of
 * HASH_SLICE_BYTES with a turn between them, so large bodies (up to the 20 MiB limit) never
 * hold other requests.
 */
import { createHmac } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Envelope } from '@spendgate/store';

export const HASH_SLICE_BYTES = 1 << 20;
/** Teams whose keys are kept; past it the cache starts again (a key costs one HKDF to derive). */
const CACHED_KEYS = 10_000;

export function createBodyHasher(envelope: Pick<Envelope, 'bodyHashKey'>) {
  const keys = new Map<string, Buffer>();
  const keyOf = (teamId: string) => {
    let key = keys.get(teamId);
    if (key === undefined) {
      if (keys.size >= CACHED_KEYS) keys.clear();
      key = envelope.bodyHashKey(teamId);
      keys.set(teamId, key);
    }
    return key;
  };

  /** Each body's fingerprint under its team's key, in order; at most HASH_SLICE_BYTES hashed per turn. */
  return async function hashBodies(bodies: readonly { teamId: string; body: Buffer }[]): Promise<string[]> {
    await nextTurn();
    const hashes: string[] = [];
    let sinceTurn = 0;
    for (const { teamId, body } of bodies) {
      const hmac = createHmac('sha256', keyOf(teamId));
      for (let offset = 0; offset < body.length; offset += HASH_SLICE_BYTES) {
        if (sinceTurn >= HASH_SLICE_BYTES) {
          await nextTurn();
          sinceTurn = 0;
        }
        const slice = body.subarray(offset, offset + HASH_SLICE_BYTES);
        hmac.update(slice);
        sinceTurn += slice.length;
      }
      hashes.push(hmac.digest('hex'));
    }
    return hashes;
  };
}

export type BodyHasher = ReturnType<typeof createBodyHasher>;
