import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  armorSshsig,
  base64Decode,
  base64Encode,
  formatPublicKey,
  isArmoredSshsig,
  parsePrivateKey,
  parsePublicKey,
  parseSshsig,
  SshFormatError,
  sshsigSignedData,
  sshString,
  concatBytes,
} from '../../common/openssh.js';
import { makeKey, sshKeygen } from '../helpers/keys.js';
import { removeDir, tempDir } from '../helpers/orchestrator.js';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function publicKeyObject(raw: Uint8Array) {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

function run(cmd: string, args: string[], input?: string) {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (r.error) throw r.error;
  return r;
}

let dir: string;
before(() => {
  dir = tempDir('corral-openssh-');
});
after(() => removeDir(dir));

describe('parsePublicKey / formatPublicKey', () => {
  it('round-trips a key with and without a comment', () => {
    const key = makeKey('ana@laptop');
    const line = formatPublicKey(key.raw, 'ana@laptop');
    assert.match(line, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+=* ana@laptop$/);
    const parsed = parsePublicKey(line);
    assert.deepEqual(parsed.key, key.raw);
    assert.equal(parsed.comment, 'ana@laptop');
    assert.equal(parsed.canonical, line.split(' ').slice(0, 2).join(' '));
    assert.equal(formatPublicKey(parsed.key), parsed.canonical);
    assert.equal(parsePublicKey(formatPublicKey(key.raw)).comment, '');
  });

  it('keeps a comment with spaces and tolerates surrounding white space', () => {
    const key = makeKey();
    const parsed = parsePublicKey(`  ${formatPublicKey(key.raw)}   Ana Lopez  work laptop \n`);
    assert.deepEqual(parsed.key, key.raw);
    assert.equal(parsed.comment, 'Ana Lopez work laptop');
  });

  it('reads a public key written by ssh-keygen', () => {
    const k = sshKeygen(dir, 'pub-roundtrip');
    const parsed = parsePublicKey(k.publicLine);
    assert.equal(formatPublicKey(parsed.key, parsed.comment), k.publicLine);
  });

  it('rejects other key types', () => {
    assert.throws(
      () => parsePublicKey('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host'),
      (err: unknown) => err instanceof SshFormatError && /ssh-rsa is not supported/.test(err.message),
    );
    assert.throws(() => parsePublicKey('ecdsa-sha2-nistp256 AAAAE2VjZHNh'), SshFormatError);
  });

  it('rejects bad base64', () => {
    assert.throws(() => parsePublicKey('ssh-ed25519 AAAA$$not-base64!!'), /not valid base64/);
  });

  it('rejects a key of the wrong length', () => {
    const short = base64Encode(concatBytes(sshString('ssh-ed25519'), sshString(new Uint8Array(31))));
    assert.throws(() => parsePublicKey(`ssh-ed25519 ${short}`), /32 bytes/);
    const long = base64Encode(concatBytes(sshString('ssh-ed25519'), sshString(new Uint8Array(33))));
    assert.throws(() => parsePublicKey(`ssh-ed25519 ${long}`), /32 bytes/);
    const trailing = base64Encode(concatBytes(sshString('ssh-ed25519'), sshString(new Uint8Array(32)), new Uint8Array([1])));
    assert.throws(() => parsePublicKey(`ssh-ed25519 ${trailing}`), /32 bytes/);
  });

  it('rejects a blob whose type differs from the line, truncated data and a missing key', () => {
    const rsaBlob = base64Encode(concatBytes(sshString('ssh-rsa'), sshString(new Uint8Array(32))));
    assert.throws(() => parsePublicKey(`ssh-ed25519 ${rsaBlob}`), /does not match its type/);
    assert.throws(() => parsePublicKey('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI'), SshFormatError);
    assert.throws(() => parsePublicKey('ssh-ed25519'), /expected/);
    assert.throws(() => parsePublicKey(''), /expected/);
  });

  it('base64 helpers agree with Buffer', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    assert.equal(base64Encode(bytes), Buffer.from(bytes).toString('base64'));
    assert.deepEqual(base64Decode(Buffer.from(bytes).toString('base64')), bytes);
  });
});

describe('parsePrivateKey', () => {
  it('reads an unencrypted key made by ssh-keygen -t ed25519', () => {
    const k = sshKeygen(dir, 'plain', '', 'plain@host');
    const parsed = parsePrivateKey(readFileSync(k.file, 'utf8'));
    assert.equal(parsed.comment, 'plain@host');
    assert.equal(parsed.seed.length, 32);
    assert.deepEqual(parsed.publicKey, parsePublicKey(k.publicLine).key);
    // The seed really is the private half of that public key.
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, parsed.seed]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
    assert.deepEqual(new Uint8Array(spki.subarray(-32)), parsed.publicKey);
    const sig = sign(null, Buffer.from('hello'), privateKey);
    assert.ok(verify(null, Buffer.from('hello'), publicKeyObject(parsed.publicKey), sig));
  });

  it('says a passphrase-protected key is encrypted', () => {
    const k = sshKeygen(dir, 'encrypted', 'secret');
    assert.throws(
      () => parsePrivateKey(readFileSync(k.file, 'utf8')),
      (err: unknown) => err instanceof SshFormatError && /encrypted/.test(err.message),
    );
  });

  it('rejects things that are not OpenSSH private keys', () => {
    assert.throws(() => parsePrivateKey('-----BEGIN PRIVATE KEY-----\nMC4CAQA=\n-----END PRIVATE KEY-----\n'), /not an OpenSSH private key/);
    const wrongMagic = `-----BEGIN OPENSSH PRIVATE KEY-----\n${Buffer.from('not-openssh-key-v1 at all').toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;
    assert.throws(() => parsePrivateKey(wrongMagic), /unknown private key format/);
  });
});

describe('parseSshsig / armorSshsig', () => {
  const message = 'corral-auth-v1:nonce-123_ABC';

  it('parses a signature made by ssh-keygen -Y sign -n corral', () => {
    const k = sshKeygen(dir, 'signer');
    const msgFile = path.join(dir, 'to-sign');
    writeFileSync(msgFile, message);
    const r = run('ssh-keygen', ['-q', '-Y', 'sign', '-n', 'corral', '-f', k.file, msgFile]);
    assert.equal(r.status, 0, r.stderr);
    const armored = readFileSync(msgFile + '.sig', 'utf8');
    assert.ok(isArmoredSshsig(armored));
    const sig = parseSshsig(armored);
    assert.deepEqual(sig.publicKey, parsePublicKey(k.publicLine).key);
    assert.equal(sig.namespace, 'corral');
    assert.equal(sig.hashAlgorithm, 'sha512');
    assert.equal(sig.signature.length, 64);
    // What ssh-keygen signed is exactly the SSHSIG blob we reconstruct.
    const signed = sshsigSignedData('corral', 'sha512', createHash('sha512').update(message).digest());
    assert.ok(verify(null, signed, publicKeyObject(sig.publicKey), sig.signature));
    const otherMessage = sshsigSignedData('corral', 'sha512', createHash('sha512').update(message + 'x').digest());
    assert.ok(!verify(null, otherMessage, publicKeyObject(sig.publicKey), sig.signature));
  });

  it('rejects text that is not an armored signature', () => {
    assert.ok(!isArmoredSshsig('c2lnbmF0dXJl'));
    assert.throws(() => parseSshsig('c2lnbmF0dXJl'), /not an armored SSH signature/);
    const bad = `-----BEGIN SSH SIGNATURE-----\n${Buffer.from('NOTSIG').toString('base64')}\n-----END SSH SIGNATURE-----\n`;
    assert.throws(() => parseSshsig(bad), /preamble/);
  });

  it('writes signatures that the real ssh-keygen -Y verify accepts', () => {
    const key = makeKey('writer@corral');
    const signed = sshsigSignedData('corral', 'sha512', createHash('sha512').update(message).digest());
    const armored = armorSshsig(key.raw, 'corral', 'sha512', sign(null, signed, key.privateKey));
    assert.deepEqual(parseSshsig(armored).publicKey, key.raw);

    const allowed = path.join(dir, 'allowed_signers');
    writeFileSync(allowed, `writer@corral ${key.publicLine}\n`);
    const sigFile = path.join(dir, 'ours.sig');
    writeFileSync(sigFile, armored);
    const ok = run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'writer@corral', '-n', 'corral', '-s', sigFile], message);
    assert.equal(ok.status, 0, `ssh-keygen -Y verify refused our signature: ${ok.stderr}${ok.stdout}`);
    assert.match(ok.stdout, /Good "corral" signature for writer@corral/);

    // The check is real: another message or another namespace fails.
    const wrongMessage = run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'writer@corral', '-n', 'corral', '-s', sigFile], message + '!');
    assert.notEqual(wrongMessage.status, 0);
    const wrongNamespace = run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'writer@corral', '-n', 'other', '-s', sigFile], message);
    assert.notEqual(wrongNamespace.status, 0);
  });
});
