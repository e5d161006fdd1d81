import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SshKey {
  /** Path of the private key file. */
  file: string;
  /** OpenSSH public key line. */
  publicKey: string;
  /** Text of the private key file. */
  privateKey: string;
}

/** A real key from ssh-keygen, as an operator would make it. */
export function makeSshKey(comment: string, passphrase = ''): SshKey {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-e2e-key-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', comment, '-f', file], { stdio: 'ignore' });
  return { file, publicKey: readFileSync(`${file}.pub`, 'utf8').trim(), privateKey: readFileSync(file, 'utf8') };
}

/** Signs the challenge the way `ssh-keygen -Y sign -n corral` users do (an armored SSHSIG). */
export function sshsign(key: SshKey, message: string): string {
  return execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-n', 'corral', '-f', key.file], { input: message, encoding: 'utf8' });
}
