/**
 * Envelope encryption of provider secrets: AES-256-GCM throughout. Each team has a
 * random data key, stored wrapped by the master key (from the environment). Each
 * secret is encrypted with its team's data key; team id, connection id and key
 * version are bound as associated data, so a ciphertext moved to another row or team
 * fails to decrypt. Captured prompts are sealed with the same data key, bound to their
 * team and request id. Layout of a sealed value: iv (12) | tag (16) | ciphertext.
 *
 * Request bodies are fingerprinted (duplicate requests) with HMAC-SHA256 under a key per team
 * derived from the master key (HKDF-SHA256, the team id as its info): never stored, the same
 * on every gateway and across restarts, different for every team, so equal bodies match
 * within a team only, and a leaked table cannot confirm a guessed prompt without the master key.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

function seal(key: Buffer, plaintext: Buffer, associatedData: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

function open(key: Buffer, sealed: Uint8Array, associatedData: string): Buffer {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

const dataKeyContext = (teamId: string, version: number) => `spendgate:data-key:${teamId}:v${version}`;
const secretContext = (teamId: string, connectionId: string, version: number) =>
  `spendgate:secret:${teamId}:${connectionId}:v${version}`;
const captureContext = (teamId: string, requestId: string, version: number) => `spendgate:capture:${teamId}:${requestId}:v${version}`;

const BODY_HASH_SALT = 'spendgate:body-hmac:v1';

export function createEnvelope(masterKey: Buffer) {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  return {
    /** The team's key for HMAC-SHA256 fingerprints of request bodies (32 bytes, derived, never stored). */
    bodyHashKey(teamId: string): Buffer {
      return Buffer.from(hkdfSync('sha256', masterKey, BODY_HASH_SALT, teamId, 32));
    },
    newDataKey(teamId: string, version: number): { wrapped: Buffer } {
      return { wrapped: seal(masterKey, randomBytes(32), dataKeyContext(teamId, version)) };
    },
    encryptSecret(
      wrappedDataKey: Uint8Array,
      scope: { teamId: string; connectionId: string; version: number },
      secret: string,
    ): Buffer {
      const dataKey = open(masterKey, wrappedDataKey, dataKeyContext(scope.teamId, scope.version));
      return seal(dataKey, Buffer.from(secret, 'utf8'), secretContext(scope.teamId, scope.connectionId, scope.version));
    },
    decryptSecret(
      wrappedDataKey: Uint8Array,
      scope: { teamId: string; connectionId: string; version: number },
      sealed: Uint8Array,
    ): string {
      const dataKey = open(masterKey, wrappedDataKey, dataKeyContext(scope.teamId, scope.version));
      return open(dataKey, sealed, secretContext(scope.teamId, scope.connectionId, scope.version)).toString('utf8');
    },
    /** Seals a captured prompt and response (already redacted) for one request of a team. */
    sealCapture(wrappedDataKey: Uint8Array, scope: { teamId: string; requestId: string; version: number }, plaintext: string): Buffer {
      const dataKey = open(masterKey, wrappedDataKey, dataKeyContext(scope.teamId, scope.version));
      return seal(dataKey, Buffer.from(plaintext, 'utf8'), captureContext(scope.teamId, scope.requestId, scope.version));
    },
    openCapture(wrappedDataKey: Uint8Array, scope: { teamId: string; requestId: string; version: number }, sealed: Uint8Array): string {
      const dataKey = open(masterKey, wrappedDataKey, dataKeyContext(scope.teamId, scope.version));
      return open(dataKey, sealed, captureContext(scope.teamId, scope.requestId, scope.version)).toString('utf8');
    },
  };
}

export type Envelope = ReturnType<typeof createEnvelope>;
