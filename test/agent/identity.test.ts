import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { IdentityError, loadOrCreateIdentity } from '../../agent/identity.js';
import { ensureStateDir } from '../../agent/state-dir.js';
import { keyFingerprint } from '../../common/node/key-fingerprint.js';
import { parsePublicKey } from '../../common/openssh.js';
import { captureLog } from './support/log-capture.js';
import { removeDir, tempDir } from './support/temp.js';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

describe('agent identity', () => {
  const root = tempDir();
  after(() => removeDir(root));

  it('is made on first start: a PKCS8 Ed25519 key, mode 0600, in a 0700 directory', () => {
    const dir = path.join(root, 'first', 'state');
    ensureStateDir(dir);
    const id = loadOrCreateIdentity(dir, 'node-a', captureLog().logger);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const keyFile = path.join(dir, 'agent.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.match(readFileSync(keyFile, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(id.publicKey.length, 32);
    assert.equal(id.fingerprint, keyFingerprint(id.publicKey));
    // The signature verifies with the public key alone.
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, id.publicKey]), format: 'der', type: 'spki' });
    assert.ok(verify(null, Buffer.from('hello'), key, id.sign('hello')));
    // agent.pub is the same key in OpenSSH format, for ssh-keygen -lf.
    const pub = parsePublicKey(readFileSync(path.join(dir, 'agent.pub'), 'utf8').trim());
    assert.deepEqual(Buffer.from(pub.key), Buffer.from(id.publicKey));
    assert.equal(pub.comment, 'corral-agent@node-a');
  });

  it('is reused after a restart', () => {
    const dir = path.join(root, 'reuse');
    ensureStateDir(dir);
    const a = loadOrCreateIdentity(dir, 'n', captureLog().logger);
    const log = captureLog();
    const b = loadOrCreateIdentity(dir, 'n', log.logger);
    assert.equal(b.fingerprint, a.fingerprint);
    assert.ok(!log.find((l) => /new agent identity/.test(l.msg ?? '')));
  });

  it('tightens a key file that others could read', () => {
    const dir = path.join(root, 'loose');
    ensureStateDir(dir);
    loadOrCreateIdentity(dir, 'n', captureLog().logger);
    chmodSync(path.join(dir, 'agent.key'), 0o644);
    chmodSync(dir, 0o755);
    const log = captureLog();
    ensureStateDir(dir);
    loadOrCreateIdentity(dir, 'n', log.logger);
    assert.equal(statSync(path.join(dir, 'agent.key')).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.ok(log.find((l) => /mode is now 0600/.test(l.msg ?? '')));
  });

  it('refuses a damaged key file instead of quietly making a new identity', () => {
    const dir = path.join(root, 'damaged');
    ensureStateDir(dir);
    writeFileSync(path.join(dir, 'agent.key'), 'not a key', { mode: 0o600 });
    assert.throws(() => loadOrCreateIdentity(dir, 'n', captureLog().logger), (err: Error) => err instanceof IdentityError && /move it away/.test(err.message));
    assert.equal(readFileSync(path.join(dir, 'agent.key'), 'utf8'), 'not a key', 'the file is left for the admin to look at');
  });

  it('never writes key material to the log', () => {
    const dir = path.join(root, 'quiet');
    ensureStateDir(dir);
    const log = captureLog('trace');
    loadOrCreateIdentity(dir, 'n', log.logger);
    const pem = readFileSync(path.join(dir, 'agent.key'), 'utf8');
    const body = pem.split('\n')[1]!;
    assert.ok(!log.text().includes(body));
    assert.ok(!log.text().includes('PRIVATE KEY'));
  });
});
