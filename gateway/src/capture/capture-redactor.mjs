// @ts-check
// Redaction of captured prompts and answers, before anything is sealed and stored: API keys
// (OpenAI/Anthropic `sk-…`, Spendgate `sg_live_…`, AWS, Google, GitHub, Slack), bearer
// tokens, e-mail addresses, card numbers (13 to 19 digits passing Luhn's check) and a
// team's own patterns. Plain JavaScript, so the same file runs as the redaction thread
// beside the sources and beside the bundle (gateway/bundle.mjs copies it), and the control
// plane imports it to check a team's patterns.
//
// A team's patterns run on RE2 (re2-wasm): linear time whatever the pattern, so none can
// backtrack catastrophically; RE2 refuses what it cannot do in linear time (back
// references, look-arounds), which makes such a pattern a 400. The built-in patterns are
// linear in JavaScript's engine too (e-mail addresses are found from their '@', not by a
// regex that rescans every start). As a thread (started by prompt-capture.ts), it takes
// { id, texts, patterns } and answers { id, texts, redactions }.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

/** @type {{ RE2: new (pattern: string, flags: string) => RegExp }} */
const { RE2 } = createRequire(import.meta.url)('re2-wasm');

/** A team may keep this many patterns of its own, each at most this many characters. */
export const MAX_TEAM_PATTERNS = 20;
export const MAX_PATTERN_LENGTH = 200;

/** Secrets with a recognisable shape, each replaced by its label. */
const SECRET_PATTERNS = [
  { label: 'api-key', pattern: /\b(?:sk-(?:ant-|proj-|svcacct-)?|sg_(?:live|test)_|rk_live_|xai-|gsk_)[A-Za-z0-9_-]{8,}/g },
  { label: 'api-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { label: 'api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { label: 'api-key', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}/g },
  { label: 'api-key', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { label: 'bearer-token', pattern: /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{8,}=*/g },
];
/** Runs of 13 to 19 digits, optionally split by single spaces or dashes. */
const CARD_CANDIDATE = /\b\d(?:[ -]?\d){12,18}\b/g;
const EMAIL_LOCAL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]/;
const EMAIL_DOMAIN = /[A-Za-z0-9.-]/;

/** @param {string} digits */
function passesLuhn(digits) {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * E-mail addresses, found from each '@': the local part to its left, a dotted domain with a
 * top-level name of letters to its right. Each character is looked at a bounded number of
 * times.
 * @param {string} text
 * @param {() => void} counted
 */
function redactEmails(text, counted) {
  let out = '';
  let copiedTo = 0;
  let at = text.indexOf('@');
  while (at !== -1) {
    let start = at;
    while (start > copiedTo && at - start < 64 && EMAIL_LOCAL.test(text.charAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && end - at < 254 && EMAIL_DOMAIN.test(text.charAt(end))) end++;
    const domain = text.slice(at + 1, end).replace(/[.-]+$/, '');
    const lastDot = domain.lastIndexOf('.');
    if (start < at && lastDot > 0 && /^[A-Za-z]{2,24}$/.test(domain.slice(lastDot + 1))) {
      out += `${text.slice(copiedTo, start)}[REDACTED:email]`;
      copiedTo = at + 1 + domain.length;
      counted();
    }
    at = text.indexOf('@', Math.max(at + 1, copiedTo));
  }
  return out + text.slice(copiedTo);
}

/**
 * A team's patterns compiled on RE2; throws naming the first that is too long, does not
 * compile, or matches the empty string.
 * @param {readonly string[]} patterns
 * @returns {RegExp[]}
 */
export function compileTeamPatterns(patterns) {
  if (patterns.length > MAX_TEAM_PATTERNS) throw new RangeError(`at most ${MAX_TEAM_PATTERNS} patterns`);
  return patterns.map((source, index) => {
    if (source.length === 0 || source.length > MAX_PATTERN_LENGTH) {
      throw new PatternError(index, `must be 1 to ${MAX_PATTERN_LENGTH} characters`);
    }
    /** @type {RegExp} */
    let compiled;
    try {
      compiled = new RE2(source, 'gu');
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: \/.*\/gu: /s, '') : 'does not compile';
      throw new PatternError(index, `is not a pattern RE2 can run (${reason}); back references and look-arounds are not supported`);
    }
    if (compiled.test('')) throw new PatternError(index, 'must not match an empty text');
    compiled.lastIndex = 0;
    return compiled;
  });
}

/** A team pattern that cannot be used: which one and why. */
export class PatternError extends Error {
  /** @param {number} index @param {string} reason */
  constructor(index, reason) {
    super(reason);
    this.index = index;
  }
}

/**
 * `text` with every secret, e-mail address, card number and team pattern replaced by a
 * `[REDACTED:…]` marker, and how many were replaced.
 * @param {string} text
 * @param {readonly RegExp[]} teamPatterns compiled by compileTeamPatterns
 */
export function redact(text, teamPatterns) {
  let redactions = 0;
  const counted = () => {
    redactions++;
  };
  let result = text;
  for (const { label, pattern } of SECRET_PATTERNS) {
    result = result.replace(pattern, () => {
      counted();
      return `[REDACTED:${label}]`;
    });
  }
  result = redactEmails(result, counted);
  result = result.replace(CARD_CANDIDATE, (candidate) => {
    const digits = candidate.replace(/[ -]/g, '');
    if (!passesLuhn(digits)) return candidate;
    counted();
    return '[REDACTED:card]';
  });
  for (const pattern of teamPatterns) {
    result = result.replace(pattern, () => {
      counted();
      return '[REDACTED:team-pattern]';
    });
  }
  return { text: result, redactions };
}

if (parentPort) {
  const port = parentPort;
  /** Compiled patterns by their sources, so a team's are compiled once per thread. */
  const compiledBySources = new Map();
  port.on('message', (/** @type {{ id: number; texts: string[]; patterns: string[] }} */ { id, texts, patterns }) => {
    const key = JSON.stringify(patterns);
    let compiled = compiledBySources.get(key);
    if (compiled === undefined) {
      try {
        compiled = compileTeamPatterns(patterns);
      } catch {
        // Checked when set; a pattern no longer valid drops the capture rather than storing it unredacted.
        port.postMessage({ id, texts: null, redactions: 0 });
        return;
      }
      if (compiledBySources.size > 1_000) compiledBySources.clear();
      compiledBySources.set(key, compiled);
    }
    let redactions = 0;
    const redacted = texts.map((text) => {
      const result = redact(text, compiled);
      redactions += result.redactions;
      return result.text;
    });
    port.postMessage({ id, texts: redacted, redactions });
  });
}
