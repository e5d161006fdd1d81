import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../orchestrator/config.js';
import { loadMasterKey } from '../../orchestrator/services/master-key.js';
import { SecretBox, SecretDecryptError } from '../../orchestrator/services/secret-box.js';
import { removeDir, tempDir } from '../helpers/orchestrator.js';

const key = randomBytes(32);
const box = new SecretBox({ id: 1, key });

describe('SecretBox (AES-256-GCM)', () => {
  it('round-trips values, with a fresh IV each time', () => {
    for (const value of ['hunter2', '', 'ünïcödé ✓ 🔑', 'x'.repeat(64 * 1024)]) {
      const a = box.seal('DB_PASSWORD', value);
      const b = box.seal('DB_PASSWORD', value);
      assert.notDeepEqual(a, b, 'two seals of one value differ');
      assert.equal(box.open('DB_PASSWORD', a), value);
      assert.equal(box.open('DB_PASSWORD', b), value);
      if (value) assert.ok(!a.includes(Buffer.from(value)), 'the plaintext is not in the blob');
    }
  });

  it('stores the format and the key id in the blob', () => {
    const blob = new SecretBox({ id: 7, key }).seal('A', 'v');
    assert.equal(blob[0], 1);
    assert.equal(blob[1], 7);
    assert.equal(SecretBox.keyIdOf(blob), 7);
    assert.equal(blob.length, 2 + 12 + 16 + 1);
  });

  it('detects tampering with any byte', () => {
    const blob = box.seal('TOKEN', 'the value');
    for (let i = 0; i < blob.length; i++) {
      const bad = Buffer.from(blob);
      bad[i]! ^= 0x01;
      assert.throws(() => box.open('TOKEN', bad), SecretDecryptError, `byte ${i} flipped`);
    }
    assert.throws(() => box.open('TOKEN', blob.subarray(0, 20)), /truncated/);
    assert.throws(() => box.open('TOKEN', Buffer.concat([blob, Buffer.from([0])])), SecretDecryptError);
  });

  it('refuses a blob under another name (the name is bound as AAD)', () => {
    const blob = box.seal('PROD_KEY', 'prod');
    assert.throws(() => box.open('DEV_KEY', blob), (err: unknown) => err instanceof SecretDecryptError && /DEV_KEY/.test(err.message) && !err.message.includes('prod'));
  });

  it('refuses the wrong key with a clear error that does not carry the value', () => {
    const blob = box.seal('API_TOKEN', 'sekrit-value');
    const other = new SecretBox({ id: 1, key: randomBytes(32) });
    assert.throws(
      () => other.open('API_TOKEN', blob),
      (err: unknown) => err instanceof SecretDecryptError && /master key/.test(err.message) && !err.message.includes('sekrit'),
    );
    assert.throws(() => new SecretBox({ id: 2, key: randomBytes(32) }).open('API_TOKEN', blob), /key id 1/);
  });

  it('opens blobs of an older key after a rotation, and seals with the new one', () => {
    const blob = box.seal('OLD', 'old value');
    const rotated = new SecretBox({ id: 2, key: randomBytes(32) }, [{ id: 1, key }]);
    assert.equal(rotated.open('OLD', blob), 'old value');
    assert.equal(SecretBox.keyIdOf(rotated.seal('OLD', 'x')), 2);
  });

  it('refuses keys of the wrong size', () => {
    assert.throws(() => new SecretBox({ id: 1, key: randomBytes(16) }), /32 bytes/);
  });
});

describe('master key', () => {
  let dir: string;
  before(() => {
    dir = tempDir('corral-master-key-');
  });
  after(() => removeDir(dir));

  it('creates master.key (32 bytes, 0600) on first start and reads it back after', () => {
    const d = path.join(dir, 'fresh');
    mkdirSync(d);
    const first = loadMasterKey(d, {});
    assert.equal(first.source, 'created');
    const file = path.join(d, 'master.key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readFileSync(file), first.key);
    const second = loadMasterKey(d, {});
    assert.equal(second.source, 'file');
    assert.deepEqual(second.key, first.key);
  });

  it('refuses a master.key readable by others, or of the wrong length', () => {
    const d = path.join(dir, 'loose');
    mkdirSync(d);
    const file = path.join(d, 'master.key');
    writeFileSync(file, randomBytes(32), { mode: 0o600 });
    chmodSync(file, 0o644);
    assert.throws(() => loadMasterKey(d, {}), (err: unknown) => err instanceof ConfigError && /0644/.test(err.message) && /chmod 600/.test(err.message));
    chmodSync(file, 0o600);
    writeFileSync(file, randomBytes(31));
    assert.throws(() => loadMasterKey(d, {}), (err: unknown) => err instanceof ConfigError && /31 bytes/.test(err.message));
  });

  it('takes CORRAL_MASTER_KEY over the file, strictly checked, without quoting it', () => {
    const d = path.join(dir, 'env');
    mkdirSync(d);
    const k = randomBytes(32);
    const got = loadMasterKey(d, { CORRAL_MASTER_KEY: k.toString('base64') });
    assert.equal(got.source, 'environment');
    assert.deepEqual(got.key, k);
    assert.ok(!existsSync(path.join(d, 'master.key')), 'no file is written when the environment has the key');
    const short = randomBytes(16).toString('base64');
    assert.throws(() => loadMasterKey(d, { CORRAL_MASTER_KEY: short }), (err: unknown) => err instanceof ConfigError && /16 bytes/.test(err.message) && !err.message.includes(short));
    assert.throws(() => loadMasterKey(d, { CORRAL_MASTER_KEY: '!!not base64 at all, but long enough to be 32 bytes!!' }), ConfigError);
  });

  it('takes a key from the embedder (desktop) over everything', () => {
    const k = randomBytes(32);
    const got = loadMasterKey(path.join(dir, 'none'), { CORRAL_MASTER_KEY: randomBytes(32).toString('base64') }, k);
    assert.equal(got.source, 'option');
    assert.deepEqual(got.key, k);
    assert.throws(() => loadMasterKey(dir, {}, randomBytes(8)), /32 bytes/);
  });
});
