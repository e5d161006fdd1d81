import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Sealed secret values: AES-256-GCM with a random 12-byte IV per value, and the
 * secret's name bound as associated data, so a ciphertext copied onto another
 * secret's row does not decrypt.
 *
 * Blob layout (stored as one BLOB):
 *   [0]      format, 0x01
 *   [1]      key id: which master key sealed it (rotation keeps old ids readable)
 *   [2..14)  IV, 12 random bytes
 *   [14..30) GCM tag, 16 bytes
 *   [30..)   ciphertext of the UTF-8 value
 * The first two bytes are part of the associated data too, so they cannot be edited.
 */

export const SECRET_BLOB_FORMAT = 1;
export const MASTER_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 2 + IV_BYTES + TAG_BYTES;
const AAD_PREFIX = 'corral-secret-v1\0';
/** The master key is not used directly: each purpose gets its own key derived from it. */
const HKDF_INFO = 'corral secrets aes-256-gcm v1';

/** A value that cannot be opened: wrong master key, another secret's blob, or tampered bytes. Never carries the value. */
export class SecretDecryptError extends Error {
  constructor(
    readonly secretName: string,
    reason: string,
  ) {
    super(`cannot decrypt secret ${secretName}: ${reason}`);
    this.name = 'SecretDecryptError';
  }
}

function deriveKey(masterKey: Buffer): Buffer {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new Error(`the master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), HKDF_INFO, 32));
}

function aad(header: Buffer, name: string): Buffer {
  return Buffer.concat([header.subarray(0, 2), Buffer.from(AAD_PREFIX + name, 'utf8')]);
}

export interface SecretBoxKey {
  /** 1-255; stored in each blob. */
  id: number;
  key: Buffer;
}

export class SecretBox {
  private readonly keys = new Map<number, Buffer>();
  private readonly currentId: number;

  /**
   * `current` seals new values; `older` keys (after a rotation) still open blobs
   * that carry their ids until everything has been re-sealed.
   */
  constructor(current: SecretBoxKey, older: SecretBoxKey[] = []) {
    for (const k of [current, ...older]) {
      if (!Number.isInteger(k.id) || k.id < 1 || k.id > 255) throw new Error(`key id must be 1-255, got ${k.id}`);
      if (this.keys.has(k.id)) throw new Error(`key id ${k.id} given twice`);
      this.keys.set(k.id, deriveKey(k.key));
    }
    this.currentId = current.id;
  }

  get keyId(): number {
    return this.currentId;
  }

  seal(name: string, value: string): Buffer {
    const header = Buffer.alloc(HEADER_BYTES);
    header[0] = SECRET_BLOB_FORMAT;
    header[1] = this.currentId;
    const iv = randomBytes(IV_BYTES);
    iv.copy(header, 2);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(header, name));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    cipher.getAuthTag().copy(header, 2 + IV_BYTES);
    return Buffer.concat([header, body]);
  }

  /** The key id a blob was sealed with (for a rotation's progress), or undefined for a blob of another format. */
  static keyIdOf(blob: Buffer): number | undefined {
    return blob.length >= HEADER_BYTES && blob[0] === SECRET_BLOB_FORMAT ? blob[1] : undefined;
  }

  open(name: string, blob: Buffer): string {
    if (blob.length < HEADER_BYTES) throw new SecretDecryptError(name, 'the stored value is truncated');
    if (blob[0] !== SECRET_BLOB_FORMAT) throw new SecretDecryptError(name, `unknown storage format ${blob[0]}`);
    const key = this.keys.get(blob[1]!);
    if (!key) throw new SecretDecryptError(name, `it was sealed with master key id ${blob[1]}, which this orchestrator does not have`);
    const iv = blob.subarray(2, 2 + IV_BYTES);
    const tag = blob.subarray(2 + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(blob, name));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(blob.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptError(
        name,
        'authentication failed (the master key is not the one it was stored with, or the stored bytes were changed)',
      );
    }
  }
}
