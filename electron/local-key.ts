// The desktop app's local admin key: an Ed25519 key pair made on first start.
// The private key is kept encrypted by the OS key store (Electron safeStorage:
// Keychain, DPAPI, libsecret/KWallet) and never leaves the main process; the
// renderer only gets signatures over authentication challenges.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { safeStorage } from 'electron';
import { formatPublicKey } from '../common/openssh.js';

/** Opt-in for machines without a usable key store: keep the key like an unencrypted ~/.ssh key. */
export const PLAINTEXT_OPT_IN = 'CORRAL_ALLOW_PLAINTEXT_KEY';

const ENCRYPTED_FILE = 'local-admin.key';
const PLAINTEXT_FILE = 'local-admin.key.pem';
const PUBLIC_FILE = 'local-admin.pub';

export interface LocalAdminKey {
  /** "ssh-ed25519 AAAA... corral-desktop@host" */
  publicKeyLine: string;
  /** Where the private key is kept, for the log. */
  storage: 'os-key-store' | 'plaintext-file';
  /** Raw Ed25519 signature over the UTF-8 bytes of message, base64. */
  sign(message: string): string;
}

export type LocalKeyResult = { key: LocalAdminKey } | { key: null; reason: string };

/**
 * True when safeStorage encrypts with a real OS secret. On Linux without a
 * keyring Electron falls back to "basic_text", a key hardcoded in Chromium:
 * that is obfuscation, not encryption, so it counts as unavailable.
 */
export function keyStoreAvailable(): boolean {
  if (!safeStorage.isEncryptionAvailable()) return false;
  return process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
}

function writePrivate(file: string, data: string | Buffer): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

function wrap(privateKey: KeyObject, storage: LocalAdminKey['storage'], dir: string): LocalAdminKey {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || !jwk.x) throw new Error('the local admin key is not an Ed25519 key');
  const publicKeyLine = formatPublicKey(Buffer.from(jwk.x, 'base64url'), `corral-desktop@${os.hostname()}`);
  const pubFile = path.join(dir, PUBLIC_FILE);
  if (!existsSync(pubFile)) writeFileSync(pubFile, `${publicKeyLine}\n`, { mode: 0o644 });
  return {
    publicKeyLine,
    storage,
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64'),
  };
}

/**
 * Loads the local admin key from `dir`, making it on first start. Never writes
 * the private key unencrypted unless CORRAL_ALLOW_PLAINTEXT_KEY=1; without a key
 * store and without that opt-in it returns no key and the reason, and the app
 * falls back to the setup link (a browser key kept by the UI).
 * Call after app 'ready' (safeStorage needs it on Linux and Windows).
 */
export function loadOrCreateLocalAdminKey(dir: string, env: NodeJS.ProcessEnv = process.env): LocalKeyResult {
  const encrypted = path.join(dir, ENCRYPTED_FILE);
  const plaintext = path.join(dir, PLAINTEXT_FILE);
  const secure = keyStoreAvailable();
  const optIn = env[PLAINTEXT_OPT_IN] === '1';

  if (existsSync(encrypted)) {
    if (!secure) return { key: null, reason: `the local admin key in ${encrypted} is encrypted by the OS key store, which is not available now` };
    try {
      const pem = safeStorage.decryptString(readFileSync(encrypted));
      return { key: wrap(createPrivateKey(pem), 'os-key-store', dir) };
    } catch (err) {
      // Keep the file: the key store may be back next time (locked keyring, other session).
      return { key: null, reason: `cannot decrypt the local admin key in ${encrypted}: ${(err as Error).message}` };
    }
  }

  if (existsSync(plaintext)) {
    const privateKey = createPrivateKey(readFileSync(plaintext, 'utf8'));
    if (!secure) return { key: wrap(privateKey, 'plaintext-file', dir) };
    // A key store appeared since the opt-in: move the key into it.
    writePrivate(encrypted, safeStorage.encryptString(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()));
    rmSync(plaintext);
    return { key: wrap(privateKey, 'os-key-store', dir) };
  }

  if (!secure && !optIn) {
    return {
      key: null,
      reason: `no OS key store is available (on Linux: no Secret Service or KWallet), so no local admin key was made; set ${PLAINTEXT_OPT_IN}=1 to keep it in a 0600 file instead`,
    };
  }
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  rmSync(path.join(dir, PUBLIC_FILE), { force: true });
  if (secure) {
    writePrivate(encrypted, safeStorage.encryptString(pem));
    return { key: wrap(privateKey, 'os-key-store', dir) };
  }
  writePrivate(plaintext, pem);
  return { key: wrap(privateKey, 'plaintext-file', dir) };
}
