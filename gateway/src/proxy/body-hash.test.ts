// Body fingerprints: keyed per team (equal bodies match within a team only), the same however
// the body is sliced, and hashed without holding the event loop through a large body.
import { createHmac, randomBytes } from 'node:crypto';
import { createEnvelope } from '@spendgate/store';
import { describe, expect, it } from 'vitest';
import { createBodyHasher, HASH_SLICE_BYTES } from './body-hash.ts';

describe('body hashes', () => {
  const envelope = createEnvelope(randomBytes(32));
  const hmac = (teamId: string, body: Buffer) => createHmac('sha256', envelope.bodyHashKey(teamId)).update(body).digest('hex');

  it('match for the same body in the same team, and nowhere else', async () => {
    const hash = createBodyHasher(envelope);
    const body = Buffer.from('{"model":"gpt-4o","messages":[{"role":"user","content":"Summarise the release notes"}]}');
    const [first, again, otherTeam, otherBody] = await hash([
      { teamId: 'team-a', body },
      { teamId: 'team-a', body: Buffer.from(body) },
      { teamId: 'team-b', body },
      { teamId: 'team-a', body: Buffer.from(`${body} `) },
    ]);
    expect(first).toBe(hmac('team-a', body));
    expect(again).toBe(first);
    expect(otherTeam).toBe(hmac('team-b', body));
    expect(new Set([first, otherTeam, otherBody]).size).toBe(3);
    // Another gateway (a hasher of its own, the same master key) agrees.
    expect(await createBodyHasher(envelope)([{ teamId: 'team-a', body }])).toEqual([first]);
  });

  it('hashes a large body in slices, letting other work run between them, to the same fingerprint', async () => {
    const large = randomBytes(3 * HASH_SLICE_BYTES + 12_345);
    const empty = Buffer.alloc(0);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const hashes = await createBodyHasher(envelope)([
      { teamId: 'team-a', body: large },
      { teamId: 'team-a', body: empty },
    ]);
    ticking = false;
    expect(hashes).toEqual([hmac('team-a', large), hmac('team-a', empty)]);
    // A turn before the first slice, then one before each of the 3 further slices.
    expect(turns).toBeGreaterThanOrEqual(4);
  });
});
