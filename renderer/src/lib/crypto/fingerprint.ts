import { base64Encode, ed25519PublicBlob, parsePublicKey } from '../../../../common/openssh.js';
import { toBuffer } from './bytes.js';

export interface KeyInfo {
  /** The line as stored on the operator. */
  line: string;
  /** SHA256:... exactly as `ssh-keygen -l` prints it. */
  fingerprint: string;
  comment: string;
}

export async function fingerprintOfRaw(rawKey: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', toBuffer(ed25519PublicBlob(rawKey)));
  return 'SHA256:' + base64Encode(new Uint8Array(digest)).replace(/=+$/, '');
}

/** Fingerprint and comment of an OpenSSH public key line; a line that does not parse keeps a placeholder. */
export async function describeKey(line: string): Promise<KeyInfo> {
  try {
    const parsed = parsePublicKey(line);
    return { line, fingerprint: await fingerprintOfRaw(parsed.key), comment: parsed.comment };
  } catch {
    return { line, fingerprint: 'unreadable key', comment: '' };
  }
}

export function describeKeys(lines: string[]): Promise<KeyInfo[]> {
  return Promise.all(lines.map(describeKey));
}
