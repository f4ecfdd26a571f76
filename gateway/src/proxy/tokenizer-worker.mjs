// @ts-check
// The tokenizer's thread: counts tokens with tiktoken (o200k_base) for the server, so no
// count ever holds the server's event loop — not the first, which loads tiktoken (~20 MiB
// of WebAssembly) and builds its encoder (~50 MiB, 170 ms idle, seconds on a busy
// machine), nor a long one. Plain JavaScript, so the same file runs beside the sources and
// beside the bundle (gateway/bundle.mjs copies it), with no TypeScript loader.
//
// Messages: { id, text } in, { id, tokens } out. Counts under way take turns, a slice of
// SLICE_CHARS each, so a long text does not hold up a short one. BPE's time grows with the
// square of a run of characters without whitespace (200 KB of letters took 31 s), so such
// runs are counted in pieces of MAX_RUN characters (a piece boundary may add a token: the
// count stays an upper estimate). After COUNT_BUDGET_MS of its own work, what is left of a
// text is bounded by its UTF-8 bytes (no text has more tokens than bytes).
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

/** Characters tiktoken sees in one call: under 1 ms of prose, ~1 ms of CJK. */
const SLICE_CHARS = 2_048;
/** Runs without whitespace are counted in pieces of at most this many characters. */
const MAX_RUN = 64;
/** A count stops after this much of its own work; the rest is bounded by its bytes. Prose counts at ~4 MB a second. */
const COUNT_BUDGET_MS = 5_000;

/** @type {import('tiktoken').Tiktoken} */
const encoder = /** @type {typeof import('tiktoken')} */ (createRequire(import.meta.url)('tiktoken')).get_encoding('o200k_base');

/** @param {number} code ASCII controls and space, NBSP and the ideographic space: where BPE's pieces end anyway. */
const isSpace = (code) => code <= 32 || code === 0xa0 || code === 0x3000;
/** @param {number} code */
const isLowSurrogate = (code) => code >= 0xdc00 && code <= 0xdfff;

/**
 * text[from, end) with a space after every MAX_RUN characters of a longer run without whitespace.
 * @param {string} text
 * @param {number} from
 * @param {number} end
 */
function withRunsBroken(text, from, end) {
  /** @type {string[]} */
  const pieces = [];
  let pieceStart = from;
  let run = 0;
  for (let i = from; i < end; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      run = 0;
      continue;
    }
    if (run >= MAX_RUN && !isLowSurrogate(code)) {
      pieces.push(text.slice(pieceStart, i));
      pieceStart = i;
      run = 0;
    }
    run++;
  }
  if (pieces.length === 0) return text.slice(from, end);
  pieces.push(text.slice(pieceStart, end));
  return pieces.join(' ');
}

/** @typedef {{ id: number; text: string; from: number; tokens: number; workedMs: number }} Count */

/** Counts under way, the next to take a turn first. @type {Count[]} */
const counts = [];

/** Counts one slice of the first count in line, then lets the next one take a turn. */
function turn() {
  const count = /** @type {Count} */ (counts.shift());
  const started = performance.now();
  const { text } = count;
  let end = Math.min(text.length, count.from + SLICE_CHARS);
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  count.tokens += encoder.encode_ordinary(withRunsBroken(text, count.from, end)).length;
  count.from = end;
  count.workedMs += performance.now() - started;
  if (count.from >= text.length) {
    parentPort?.postMessage({ id: count.id, tokens: count.tokens });
  } else if (count.workedMs > COUNT_BUDGET_MS) {
    parentPort?.postMessage({ id: count.id, tokens: count.tokens + Buffer.byteLength(text.slice(count.from)) });
  } else {
    counts.push(count);
  }
  // A turn of the thread's own event loop between slices, so new counts join the line.
  if (counts.length > 0) setImmediate(turn);
}

parentPort?.on('message', (/** @type {{ id: number; text: string }} */ { id, text }) => {
  counts.push({ id, text, from: 0, tokens: 0, workedMs: 0 });
  if (counts.length === 1) setImmediate(turn);
});
