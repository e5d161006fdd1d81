// Ed25519 keys for tests, made with node:crypto (fast) or the real ssh-keygen
// (to prove compatibility with OpenSSH's own files and signatures).
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatPublicKey, parsePrivateKey } from '../../common/openssh.js';
import { keyFingerprint } from '../../orchestrator/services/keys.js';

export interface TestKey {
  /** The 32 raw public key bytes. */
  raw: Uint8Array;
  /** "ssh-ed25519 AAAA... comment" */
  publicLine: string;
  /** SHA256:... as ssh-keygen -l prints it. */
  fingerprint: string;
  privateKey: KeyObject;
  /** Raw Ed25519 signature of the UTF-8 message, base64. */
  sign(message: string): string;
}

export function makeKey(comment = 'test@corral'): TestKey {
  return testKey(generateKeyPairSync('ed25519').privateKey, comment);
}

function testKey(privateKey: KeyObject, comment: string): TestKey {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const raw = new Uint8Array(spki.subarray(spki.length - 32));
  return {
    raw,
    publicLine: formatPublicKey(raw, comment),
    fingerprint: keyFingerprint(raw),
    privateKey,
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64'),
  };
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A TestKey for an unencrypted OpenSSH private key file (e.g. one ssh-keygen made). */
export function keyFromFile(file: string): TestKey {
  const parsed = parsePrivateKey(readFileSync(file, 'utf8'));
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, parsed.seed]), format: 'der', type: 'pkcs8' });
  return testKey(privateKey, parsed.comment);
}

export interface SshKeyFile {
  /** Path of the private key file; the public key is file + ".pub". */
  file: string;
  publicLine: string;
}

/** Makes a key with the real `ssh-keygen -t ed25519`; an empty passphrase leaves it unencrypted. */
export function sshKeygen(dir: string, name: string, passphrase = '', comment = `${name}@corral-test`): SshKeyFile {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', comment, '-f', file], { stdio: 'pipe' });
  return { file, publicLine: readFileSync(file + '.pub', 'utf8').trim() };
}

/**
 * Signs `message` (exactly those bytes, no trailing newline) with the real
 * `ssh-keygen -Y sign`, returning the armored SSHSIG text.
 */
export function sshKeygenSign(keyFile: string, message: string, dir: string, namespace = 'corral'): string {
  const msgFile = path.join(dir, `msg-${process.hrtime.bigint()}`);
  writeFileSync(msgFile, message);
  execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-n', namespace, '-f', keyFile, msgFile], { stdio: 'pipe' });
  return readFileSync(msgFile + '.sig', 'utf8');
}
