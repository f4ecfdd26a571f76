/**
 * JSON request bodies, parsed the same way on both planes: nesting is bounded (counted
 * on the bytes before parsing, so a 100k-deep body costs one pass, never a recursion
 * that overflows the stack later), and `__proto__` / `constructor.prototype` keys are
 * refused. A body that breaks either rule is a 400 naming `body`.
 */

import { ValidationError } from '@spendgate/core';
import secureJson from 'secure-json-parse';

/** How deep objects and arrays may nest in a request body. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escaped(bytes: Uint8Array, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes - 1 >= 0 && bytes[at - backslashes - 1] === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Whether JSON text nests objects and arrays more than `limit` levels deep. Strings are
 * skipped whole (a native search for their closing quote), so text costs next to nothing.
 * @example nestsDeeperThan(Buffer.from('[[1]]'), 1) // true
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      let end = bytes.indexOf(QUOTE, at + 1);
      while (end !== -1 && escaped(bytes, end)) end = bytes.indexOf(QUOTE, end + 1);
      // An unterminated string: the parser refuses it.
      if (end === -1) return false;
      at = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** The JSON in `bytes`, or a ValidationError naming `body`. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) throw new ValidationError('body', `body: JSON may nest at most ${MAX_JSON_DEPTH} levels deep`);
  try {
    return secureJson.parse(bytes.toString(), undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new ValidationError('body', `body: ${(error as Error).message}`);
  }
}
