/**
 * Keys Spendgate issues: to applications `sg_live_`, to GPU agents `sg_gpu_` (what they
 * push telemetry with), + 32 random bytes in base62 + a 6-character base62 CRC-32
 * checksum (so typos are caught before any lookup). Only the SHA-256 hash and a short
 * visible prefix are stored; the plaintext is shown once.
 *
 * @example
 *   const { plaintext, hash, prefix } = generateIssuedKey();
 *   isWellFormedKey(plaintext) // true
 *   isWellFormedKey(generateIssuedKey(GPU_INGEST_KEY_PREFIX).plaintext, GPU_INGEST_KEY_PREFIX) // true
 */
import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const KEY_PREFIX = 'sg_live_';
export const GPU_INGEST_KEY_PREFIX = 'sg_gpu_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43; // ceil(256 bits / log2(62))
const CHECKSUM_LENGTH = 6;
const VISIBLE_LENGTH = 6;

function toBase62(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

function checksumOf(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

export function hashIssuedKey(plaintext: string): string {
  return hash('sha256', plaintext, 'hex');
}

export function generateIssuedKey(keyPrefix = KEY_PREFIX): { plaintext: string; hash: string; prefix: string } {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH);
  const plaintext = `${keyPrefix}${body}${checksumOf(body)}`;
  return { plaintext, hash: hashIssuedKey(plaintext), prefix: plaintext.slice(0, keyPrefix.length + VISIBLE_LENGTH) };
}

/** True for a key of the right shape (with `keyPrefix`) whose checksum matches. */
export function isWellFormedKey(candidate: string, keyPrefix = KEY_PREFIX): boolean {
  if (!candidate.startsWith(keyPrefix) || candidate.length !== keyPrefix.length + BODY_LENGTH + CHECKSUM_LENGTH) {
    return false;
  }
  const body = candidate.slice(keyPrefix.length, keyPrefix.length + BODY_LENGTH);
  return checksumOf(body) === candidate.slice(keyPrefix.length + BODY_LENGTH);
}
