import { closeSync, existsSync, fsyncSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../config.js';
import { MASTER_KEY_BYTES } from './secret-box.js';

export const MASTER_KEY_FILE = 'master.key';
export const MASTER_KEY_ENV = 'CORRAL_MASTER_KEY';

export type MasterKeySource = 'option' | 'environment' | 'file' | 'created';

export interface MasterKey {
  key: Buffer;
  /** Where it came from; safe to log (the key itself never is). */
  source: MasterKeySource;
  /** The key file, when the key came from (or was written to) one. */
  file?: string;
}

function fromEnvironment(text: string): Buffer {
  const trimmed = text.trim();
  // Strict base64: Buffer.from() silently skips junk, so check the round trip. The message never quotes the value.
  const key = Buffer.from(trimmed, 'base64');
  const canonical = key.toString('base64');
  if (trimmed.replace(/=+$/, '') !== canonical.replace(/=+$/, '') || key.length !== MASTER_KEY_BYTES) {
    throw new ConfigError(
      `${MASTER_KEY_ENV} must be the base64 of exactly ${MASTER_KEY_BYTES} bytes (e.g. from "openssl rand -base64 32"); ` +
        `the value given ${key.length === MASTER_KEY_BYTES ? 'is not valid base64' : `decodes to ${key.length} bytes`}`,
    );
  }
  return key;
}

function fromFile(file: string): Buffer {
  const st = lstatSync(file);
  if (!st.isFile()) throw new ConfigError(`${file} must be a regular file holding the ${MASTER_KEY_BYTES}-byte master key`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new ConfigError(
      `${file} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}; the master key must be readable by its owner only ` +
        `(chmod 600 ${file}), refusing to start`,
    );
  }
  const key = readFileSync(file);
  if (key.length !== MASTER_KEY_BYTES) {
    throw new ConfigError(`${file} holds ${key.length} bytes; a master key is exactly ${MASTER_KEY_BYTES} random bytes, refusing to start`);
  }
  return key;
}

function create(file: string): Buffer {
  const key = randomBytes(MASTER_KEY_BYTES);
  // 'wx': never overwrite a key another process wrote meanwhile; 0600 from the first byte.
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, key);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return key;
}

/**
 * The key that seals secrets. In order: the one the caller passes (the desktop shell
 * keeps its own with Electron safeStorage), CORRAL_MASTER_KEY from the environment
 * (never corral.yaml: a key in a file beside the database protects nothing more than
 * master.key does), then `master.key` in the data directory, created on first start.
 */
export function loadMasterKey(dataDir: string, env: NodeJS.ProcessEnv, provided?: Buffer): MasterKey {
  if (provided !== undefined) {
    if (!Buffer.isBuffer(provided) || provided.length !== MASTER_KEY_BYTES) {
      throw new ConfigError(`masterKey must be a Buffer of exactly ${MASTER_KEY_BYTES} bytes`);
    }
    return { key: Buffer.from(provided), source: 'option' };
  }
  const fromEnv = env[MASTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { key: fromEnvironment(fromEnv), source: 'environment' };
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) return { key: fromFile(file), source: 'file', file };
  return { key: create(file), source: 'created', file };
}
