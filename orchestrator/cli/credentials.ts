import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What `corral login` keeps so later commands can call the API. */
export interface Credentials {
  url: string;
  fingerprint?: string;
  operator_id: string;
  token: string;
  expires_at: string;
}

export function configDir(): string {
  if (process.env.CORRAL_CONFIG_DIR) return process.env.CORRAL_CONFIG_DIR;
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'corral');
}

function file(): string {
  return path.join(configDir(), 'credentials.json');
}

export function loadCredentials(): Credentials | undefined {
  if (!existsSync(file())) return undefined;
  return JSON.parse(readFileSync(file(), 'utf8')) as Credentials;
}

export function saveCredentials(c: Credentials): string {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeFileSync(file(), JSON.stringify(c, null, 2) + '\n', { mode: 0o600 });
  return file();
}

export function clearCredentials(): void {
  rmSync(file(), { force: true });
}
