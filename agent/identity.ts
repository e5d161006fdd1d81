// The agent's identity: an Ed25519 key pair made on first start and kept in the state
// directory. The orchestrator pins the first public key it sees for a node_id, so the
// private key must survive restarts and upgrades, and a damaged key file is an error to
// fix by hand rather than a reason to quietly make a new key (which would be refused).
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { keyFingerprint } from '../common/node/key-fingerprint.js';
import { formatPublicKey } from '../common/openssh.js';
import type { Logger } from './logger.js';
import { createFileExclusive, writeFileAtomic } from './state-dir.js';

export const KEY_FILE = 'agent.key';
export const PUBLIC_KEY_FILE = 'agent.pub';

export class IdentityError extends Error {}

export interface Identity {
  /** The 32 raw public key bytes (what the auth message carries, base64). */
  publicKey: Uint8Array;
  /** SHA256:... as `ssh-keygen -l` prints it; what operators compare before approving. */
  fingerprint: string;
  /** Raw 64-byte Ed25519 signature of the UTF-8 message. */
  sign(message: string): Buffer;
}

function rawPublicKey(privateKey: KeyObject): Uint8Array {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  // An Ed25519 SPKI is a fixed 12-byte header followed by the 32 key bytes.
  return new Uint8Array(spki.subarray(spki.length - 32));
}

function load(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new IdentityError(`${file} is not a readable private key (${(err as Error).message}); move it away to make a new identity, then delete this agent's old record on the orchestrator`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new IdentityError(`${file} holds a ${key.asymmetricKeyType} key, not Ed25519; move it away to make a new identity`);
  return key;
}

/** Loads the key pair from the state directory, or makes one (PKCS8 PEM, mode 0600) on first start. */
export function loadOrCreateIdentity(stateDir: string, nodeId: string, log: Logger): Identity {
  const file = path.join(stateDir, KEY_FILE);
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // Exclusive create: two agents started at once on one state dir must not end with two keys.
    if (createFileExclusive(file, pem, 0o600)) log.info({ file }, 'made a new agent identity key');
  }
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    chmodSync(file, 0o600);
    log.warn({ file, mode: mode.toString(8) }, 'the agent key was readable by others; its mode is now 0600');
  }
  const privateKey = load(file);
  const publicKey = rawPublicKey(privateKey);
  // The public half beside it, in OpenSSH format, so `ssh-keygen -lf agent.pub` shows the
  // fingerprint the orchestrator displays. Rewritten each start: it is derived, never trusted.
  writeFileAtomic(path.join(stateDir, PUBLIC_KEY_FILE), formatPublicKey(publicKey, `corral-agent@${nodeId}`) + '\n', 0o644);
  return {
    publicKey,
    fingerprint: keyFingerprint(publicKey),
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey),
  };
}
