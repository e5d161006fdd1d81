// The key that encrypts secrets (DESIGN.md "Secrets": desktop keeps it with safeStorage).
// With an OS key store it lives in master.key.enc, encrypted by the key store, and is
// handed to the orchestrator in memory; without one the orchestrator keeps its own
// 0600 master.key as on a headless server.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { safeStorage } from 'electron';
import { keyStoreAvailable } from './local-key.js';

const ENCRYPTED_FILE = 'master.key.enc';
/** The orchestrator's own file, used when there is no key store. */
const PLAIN_FILE = 'master.key';
const KEY_BYTES = 32;

function writePrivate(file: string, data: Buffer): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/**
 * The master key for startOrchestrator, or undefined to let the orchestrator use its
 * master.key file. Throws when secrets were sealed with the key store and it is not
 * available now: starting with another key would leave every secret unreadable.
 * Call after app 'ready'.
 */
export function loadDesktopMasterKey(dir: string): Buffer | undefined {
  const encrypted = path.join(dir, ENCRYPTED_FILE);
  const plain = path.join(dir, PLAIN_FILE);
  const secure = keyStoreAvailable();
  if (existsSync(encrypted)) {
    if (!secure) throw new Error(`the secrets key in ${encrypted} is sealed by the OS key store, which is not available now; unlock it and start Corral again`);
    const key = Buffer.from(safeStorage.decryptString(readFileSync(encrypted)), 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${encrypted} does not hold a ${KEY_BYTES}-byte key`);
    return key;
  }
  if (!secure) return undefined;
  // A key store is here: seal the orchestrator's existing key (from a run without one), or a new key.
  const key = existsSync(plain) ? readFileSync(plain) : randomBytes(KEY_BYTES);
  if (key.length !== KEY_BYTES) throw new Error(`${plain} does not hold a ${KEY_BYTES}-byte key`);
  writePrivate(encrypted, safeStorage.encryptString(key.toString('base64')));
  rmSync(plain, { force: true });
  return key;
}
