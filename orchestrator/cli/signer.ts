import { createHash, createPrivateKey, sign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sshpk from 'sshpk';
import {
  armorSshsig,
  parsePrivateKey,
  parsePublicKey,
  SshFormatError,
  SSHSIG_NAMESPACE,
  sshsigSignedData,
  formatPublicKey,
} from '../../common/openssh.js';
import { agentSign, listAgentKeys } from './ssh-agent.js';
import { promptHidden } from './prompt.js';

export interface Signer {
  publicKey: Uint8Array;
  source: string;
  /** Signs `message` as `ssh-keygen -Y sign -n corral` would, returning the armored signature. */
  signSshsig(message: string): Promise<string>;
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function sshsigData(message: string): Uint8Array {
  return sshsigSignedData(SSHSIG_NAMESPACE, 'sha512', createHash('sha512').update(message, 'utf8').digest());
}

function expandHome(file: string): string {
  return file.replace(/^~(?=$|\/)/, os.homedir());
}

async function readSeed(file: string): Promise<{ seed: Uint8Array; publicKey: Uint8Array }> {
  const text = readFileSync(file, 'utf8');
  try {
    return parsePrivateKey(text);
  } catch (err) {
    if (!(err instanceof SshFormatError) || !/encrypted/.test(err.message)) throw err;
  }
  const passphrase = process.env.CORRAL_KEY_PASSPHRASE ?? (await promptHidden(`Passphrase for ${file}: `));
  const key = sshpk.parsePrivateKey(text, 'ssh', { passphrase });
  if (key.type !== 'ed25519') throw new Error(`${file} is a ${key.type} key; Corral needs ssh-ed25519`);
  const parts = key.part as unknown as Record<string, { data: Buffer }>;
  return { seed: new Uint8Array(parts.k!.data.subarray(-32)), publicKey: new Uint8Array(parts.A!.data.subarray(-32)) };
}

function fileSigner(file: string, seed: Uint8Array, publicKey: Uint8Array): Signer {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return {
    publicKey,
    source: file,
    async signSshsig(message) {
      const signature = sign(null, sshsigData(message), privateKey);
      return armorSshsig(publicKey, SSHSIG_NAMESPACE, 'sha512', signature);
    },
  };
}

function agentSigner(socket: string, publicKey: Uint8Array, comment: string): Signer {
  return {
    publicKey,
    source: `ssh-agent (${comment || formatPublicKey(publicKey)})`,
    async signSshsig(message) {
      const signature = await agentSign(socket, publicKey, sshsigData(message));
      return armorSshsig(publicKey, SSHSIG_NAMESPACE, 'sha512', signature);
    },
  };
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Picks how to sign: ssh-agent when SSH_AUTH_SOCK is set and holds the key
 * (or any Ed25519 key when no file was named), otherwise the private key file.
 */
export async function chooseSigner(keyFile: string | undefined, agentSocket = process.env.SSH_AUTH_SOCK): Promise<Signer> {
  const file = keyFile ? expandHome(keyFile) : undefined;
  if (agentSocket) {
    const keys = await listAgentKeys(agentSocket).catch(() => []);
    if (file) {
      const pubFile = file.endsWith('.pub') ? file : `${file}.pub`;
      if (existsSync(pubFile)) {
        const wanted = parsePublicKey(readFileSync(pubFile, 'utf8')).key;
        const match = keys.find((k) => sameKey(k.publicKey, wanted));
        if (match) return agentSigner(agentSocket, match.publicKey, match.comment);
      }
    } else if (keys.length) {
      return agentSigner(agentSocket, keys[0]!.publicKey, keys[0]!.comment);
    }
  }
  const privateFile = file ? file.replace(/\.pub$/, '') : path.join(os.homedir(), '.ssh', 'id_ed25519');
  if (!existsSync(privateFile)) {
    throw new Error(`no key to sign with: ${privateFile} does not exist${agentSocket ? ' and ssh-agent holds no matching Ed25519 key' : ''}; pass --key FILE`);
  }
  const { seed, publicKey } = await readSeed(privateFile);
  return fileSigner(privateFile, seed, publicKey);
}
