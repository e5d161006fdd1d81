// Ed25519 keys made or imported in the browser with WebCrypto, always non-extractable.
import { base64Encode, concatBytes, formatPublicKey, parsePrivateKey, SshFormatError } from '../../../../common/openssh.js';
import { LocalError } from '../api/errors.js';
import { toBuffer, utf8 } from './bytes.js';
import { fingerprintOfRaw } from './fingerprint.js';
import { storeId, type StoredKey } from './key-store.js';

/** DER PKCS#8 header of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

export function ensureWebCrypto(): void {
  if (!window.isSecureContext || !crypto?.subtle) {
    throw new LocalError(
      'Browser keys need a secure page',
      'This page is not a secure context, so the browser offers no WebCrypto. Open Corral over HTTPS (the default) or on localhost.',
    );
  }
}

async function describe(operatorId: string, privateKey: CryptoKey, publicKey: CryptoKey, raw: Uint8Array, source: StoredKey['source'], comment: string): Promise<StoredKey> {
  return {
    id: storeId(operatorId),
    origin: location.origin,
    operator_id: operatorId,
    privateKey,
    publicKey,
    public_key: formatPublicKey(raw, comment),
    fingerprint: await fingerprintOfRaw(raw),
    source,
    created_at: new Date().toISOString(),
  };
}

/** A new key pair whose private half never leaves WebCrypto. */
export async function generateBrowserKey(operatorId: string): Promise<StoredKey> {
  ensureWebCrypto();
  let pair: CryptoKeyPair;
  try {
    pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  } catch (err) {
    throw new LocalError('This browser cannot make Ed25519 keys', `WebCrypto refused: ${(err as Error).message}. Use a current Chromium, Firefox or Safari, or paste an OpenSSH key.`);
  }
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return describe(operatorId, pair.privateKey, pair.publicKey, raw, 'generated', `${operatorId}@corral-browser`);
}

/**
 * Imports an unencrypted OpenSSH Ed25519 private key as a non-extractable
 * WebCrypto key. The caller drops the text; the seed copies are wiped here.
 */
export async function importOpenSshKey(operatorId: string, text: string): Promise<StoredKey> {
  ensureWebCrypto();
  if (/BEGIN (RSA|EC|DSA|ENCRYPTED)? ?PRIVATE KEY/.test(text) && !text.includes('BEGIN OPENSSH PRIVATE KEY')) {
    throw new LocalError('Not an OpenSSH Ed25519 key', 'Corral signs with Ed25519 keys in OpenSSH format ("-----BEGIN OPENSSH PRIVATE KEY-----"). Make one with: ssh-keygen -t ed25519');
  }
  let parsed;
  try {
    parsed = parsePrivateKey(text);
  } catch (err) {
    if (err instanceof SshFormatError && /encrypted|passphrase/.test(err.message)) {
      throw new LocalError(
        'This key is protected by a passphrase',
        'The browser does not decrypt private keys. Sign in with the corral CLI and ssh-agent ("corral login"), or import a copy without a passphrase (ssh-keygen -p -N "" -f COPY).',
      );
    }
    throw err;
  }
  const pkcs8 = toBuffer(concatBytes(ED25519_PKCS8_PREFIX, parsed.seed));
  try {
    const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
    const publicKey = await crypto.subtle.importKey('raw', toBuffer(parsed.publicKey), { name: 'Ed25519' }, true, ['verify']);
    // The file carries both halves; make sure they belong together before trusting it.
    const probe = utf8('corral-key-check');
    const ok = await crypto.subtle.verify('Ed25519', publicKey, await crypto.subtle.sign('Ed25519', privateKey, probe), probe);
    if (!ok) throw new LocalError('Damaged private key', 'The private and public halves in this file do not match.');
    return await describe(operatorId, privateKey, publicKey, parsed.publicKey, 'imported', parsed.comment);
  } finally {
    pkcs8.fill(0);
    parsed.seed.fill(0);
  }
}

/** Base64 raw Ed25519 signature over the UTF-8 bytes of `message`. */
export async function signWith(privateKey: CryptoKey, message: string): Promise<string> {
  const signature = await crypto.subtle.sign('Ed25519', privateKey, utf8(message));
  return base64Encode(new Uint8Array(signature));
}
