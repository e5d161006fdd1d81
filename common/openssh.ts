// OpenSSH wire formats used for operator authentication: public key lines,
// unencrypted private key files, and SSHSIG signatures (ssh-keygen -Y sign).
// Pure Uint8Array code so the orchestrator, the CLI and the browser share it.

export const SSH_ED25519 = 'ssh-ed25519';
export const SSHSIG_NAMESPACE = 'corral';
const SSHSIG_MAGIC = 'SSHSIG';
const ARMOR_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const ARMOR_END = '-----END SSH SIGNATURE-----';
const PRIVATE_BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----';
const PRIVATE_END = '-----END OPENSSH PRIVATE KEY-----';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class SshFormatError extends Error {}

export function base64Encode(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function base64Decode(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new SshFormatError('not valid base64');
  let binary: string;
  try {
    binary = atob(clean);
  } catch {
    throw new SshFormatError('not valid base64'); // e.g. a length that is 1 mod 4
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Reads the SSH wire encoding (RFC 4251 section 5). */
export class SshReader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  uint32(): number {
    if (this.offset + 4 > this.bytes.length) throw new SshFormatError('truncated data');
    const b = this.bytes;
    const o = this.offset;
    this.offset += 4;
    return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
  }

  raw(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new SshFormatError('truncated data');
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  string(): Uint8Array {
    return this.raw(this.uint32());
  }

  text(): string {
    return decoder.decode(this.string());
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function sshUint32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

export function sshString(value: Uint8Array | string): Uint8Array {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  return concatBytes(sshUint32(bytes.length), bytes);
}

/** The SSH public key blob of an Ed25519 key: string "ssh-ed25519", string key. */
export function ed25519PublicBlob(publicKey: Uint8Array): Uint8Array {
  return concatBytes(sshString(SSH_ED25519), sshString(publicKey));
}

export interface ParsedPublicKey {
  /** The 32 raw key bytes. */
  key: Uint8Array;
  comment: string;
  /** Canonical "ssh-ed25519 AAAA..." without the comment. */
  canonical: string;
}

/** Parses one OpenSSH public key line; only ssh-ed25519 is accepted. */
export function parsePublicKey(line: string): ParsedPublicKey {
  const parts = line.trim().split(/\s+/);
  if (parts.length < 2) throw new SshFormatError('expected "ssh-ed25519 AAAA... [comment]"');
  const [type, data, ...comment] = parts as [string, string, ...string[]];
  if (type !== SSH_ED25519) throw new SshFormatError(`key type ${type} is not supported; use ssh-ed25519`);
  const reader = new SshReader(base64Decode(data));
  const blobType = reader.text();
  if (blobType !== SSH_ED25519) throw new SshFormatError('key data does not match its type');
  const key = reader.string();
  if (key.length !== 32 || reader.remaining !== 0) throw new SshFormatError('Ed25519 key must be 32 bytes');
  return { key: key.slice(), comment: comment.join(' '), canonical: `${SSH_ED25519} ${data}` };
}

export function formatPublicKey(publicKey: Uint8Array, comment = ''): string {
  const line = `${SSH_ED25519} ${base64Encode(ed25519PublicBlob(publicKey))}`;
  return comment ? `${line} ${comment}` : line;
}

export interface ParsedPrivateKey {
  seed: Uint8Array;
  publicKey: Uint8Array;
  comment: string;
}

/**
 * Parses an unencrypted "openssh-key-v1" Ed25519 private key file.
 * Encrypted keys throw an error that says so; callers that can prompt for a
 * passphrase (the CLI) decrypt them with a library first.
 */
export function parsePrivateKey(pem: string): ParsedPrivateKey {
  const start = pem.indexOf(PRIVATE_BEGIN);
  const end = pem.indexOf(PRIVATE_END);
  if (start < 0 || end < start) throw new SshFormatError('not an OpenSSH private key (BEGIN OPENSSH PRIVATE KEY)');
  const bytes = base64Decode(pem.slice(start + PRIVATE_BEGIN.length, end));
  const magic = decoder.decode(bytes.subarray(0, 15));
  if (magic !== 'openssh-key-v1\0') throw new SshFormatError('unknown private key format');
  const reader = new SshReader(bytes.subarray(15));
  const cipher = reader.text();
  reader.text(); // kdf name
  reader.string(); // kdf options
  if (cipher !== 'none') throw new SshFormatError('the private key is encrypted with a passphrase');
  const count = reader.uint32();
  if (count !== 1) throw new SshFormatError('expected exactly one key in the file');
  reader.string(); // public key blob, repeated in the private section
  const priv = new SshReader(reader.string());
  if (priv.uint32() !== priv.uint32()) throw new SshFormatError('private key check bytes differ (wrong passphrase?)');
  const type = priv.text();
  if (type !== SSH_ED25519) throw new SshFormatError(`key type ${type} is not supported; use ssh-ed25519`);
  const publicKey = priv.string();
  const secret = priv.string();
  if (publicKey.length !== 32 || secret.length !== 64) throw new SshFormatError('malformed Ed25519 key');
  return { seed: secret.slice(0, 32), publicKey: publicKey.slice(), comment: priv.text() };
}

/** The blob an SSHSIG signer signs: magic, namespace, reserved, hash algorithm, H(message). */
export function sshsigSignedData(namespace: string, hashAlgorithm: string, messageHash: Uint8Array): Uint8Array {
  return concatBytes(
    encoder.encode(SSHSIG_MAGIC),
    sshString(namespace),
    sshString(''),
    sshString(hashAlgorithm),
    sshString(messageHash),
  );
}

export interface ParsedSshsig {
  publicKey: Uint8Array;
  namespace: string;
  hashAlgorithm: string;
  signature: Uint8Array;
}

export function isArmoredSshsig(text: string): boolean {
  return text.trimStart().startsWith(ARMOR_BEGIN);
}

/** Parses an armored SSH signature as written by `ssh-keygen -Y sign`. */
export function parseSshsig(armored: string): ParsedSshsig {
  const start = armored.indexOf(ARMOR_BEGIN);
  const end = armored.indexOf(ARMOR_END);
  if (start < 0 || end < start) throw new SshFormatError('not an armored SSH signature');
  const bytes = base64Decode(armored.slice(start + ARMOR_BEGIN.length, end));
  if (decoder.decode(bytes.subarray(0, 6)) !== SSHSIG_MAGIC) throw new SshFormatError('missing SSHSIG preamble');
  const reader = new SshReader(bytes.subarray(6));
  const version = reader.uint32();
  if (version !== 1) throw new SshFormatError(`SSHSIG version ${version} is not supported`);
  const publicBlob = new SshReader(reader.string());
  if (publicBlob.text() !== SSH_ED25519) throw new SshFormatError('only ssh-ed25519 signatures are supported');
  const publicKey = publicBlob.string();
  const namespace = reader.text();
  reader.string(); // reserved
  const hashAlgorithm = reader.text();
  const sigBlob = new SshReader(reader.string());
  if (sigBlob.text() !== SSH_ED25519) throw new SshFormatError('only ssh-ed25519 signatures are supported');
  const signature = sigBlob.string();
  if (publicKey.length !== 32 || signature.length !== 64) throw new SshFormatError('malformed Ed25519 signature');
  return { publicKey: publicKey.slice(), namespace, hashAlgorithm, signature: signature.slice() };
}

/** Wraps a raw Ed25519 signature as an armored SSHSIG, as ssh-keygen would print it. */
export function armorSshsig(publicKey: Uint8Array, namespace: string, hashAlgorithm: string, signature: Uint8Array): string {
  const blob = concatBytes(
    encoder.encode(SSHSIG_MAGIC),
    sshUint32(1),
    sshString(ed25519PublicBlob(publicKey)),
    sshString(namespace),
    sshString(''),
    sshString(hashAlgorithm),
    sshString(concatBytes(sshString(SSH_ED25519), sshString(signature))),
  );
  const b64 = base64Encode(blob);
  const lines = b64.match(/.{1,70}/g) ?? [];
  return `${ARMOR_BEGIN}\n${lines.join('\n')}\n${ARMOR_END}\n`;
}
