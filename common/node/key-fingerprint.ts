import { createHash } from 'node:crypto';
import { ed25519PublicBlob } from '../openssh.js';

/** SHA256 fingerprint of an Ed25519 key exactly as `ssh-keygen -l` prints it; used for operator and agent keys. */
export function keyFingerprint(rawKey: Uint8Array): string {
  const digest = createHash('sha256').update(ed25519PublicBlob(rawKey)).digest('base64');
  return 'SHA256:' + digest.replace(/=+$/, '');
}
