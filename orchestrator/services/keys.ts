import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { keyFingerprint } from '../../common/node/key-fingerprint.js';
import { parsePublicKey, SshFormatError, type ParsedPublicKey } from '../../common/openssh.js';
import { BadRequest } from '../http/errors.js';


/** Parses an operator's public key line, turning format problems into a 400 naming the field. */
export function parseOperatorKey(line: string, field: string): ParsedPublicKey & { fingerprint: string } {
  try {
    const parsed = parsePublicKey(line);
    return { ...parsed, fingerprint: keyFingerprint(parsed.key) };
  } catch (err) {
    if (err instanceof SshFormatError) throw new BadRequest(`${field}: ${err.message}`, [{ field, message: err.message }], 'invalid-public-key');
    throw err;
  }
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function ed25519KeyObject(rawKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, rawKey]), format: 'der', type: 'spki' });
}

export function verifyEd25519(rawKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  return verify(null, message, ed25519KeyObject(rawKey), signature);
}

export { keyFingerprint };
