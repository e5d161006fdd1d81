import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, startServe, type ServeChild } from '../helpers/child.js';
import { makeKey } from '../helpers/keys.js';
import { makeApi, removeDir, startTestOrchestrator, tempDir } from '../helpers/orchestrator.js';

async function signIn(api: ReturnType<typeof makeApi>, operatorId: string, key: ReturnType<typeof makeKey>): Promise<string> {
  const c = await api('POST', '/auth/challenge', { body: { operator_id: operatorId } });
  const v = await api('POST', '/auth/verify', { body: { operator_id: operatorId, nonce: c.json.nonce, signature: key.sign(c.json.message) } });
  assert.equal(v.status, 200, v.text);
  return v.json.token;
}

describe('a crash right after an acknowledged write', () => {
  let dir: string;
  let dataDir: string;
  let serve: ServeChild | undefined;
  const adminKey = makeKey('admin@durability');

  before(() => {
    dir = tempDir('corral-durability-');
    dataDir = path.join(dir, 'data');
    writeFileSync(path.join(dir, 'admin.pub'), adminKey.publicLine + '\n');
  });
  after(async () => {
    await serve?.kill('SIGKILL');
    removeDir(dir);
  });

  const args = () => ['--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--admin-key', path.join(dir, 'admin.pub'), '--log-level', 'warn'];

  it('loses nothing the API acknowledged (SIGKILL as soon as the 201 arrives)', async () => {
    serve = await startServe(args(), cleanEnv());
    assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    let api = makeApi(serve.url);
    const token = await signIn(api, 'admin', adminKey);
    const created = await api('POST', '/operators', { token, body: { operator_id: 'survivor', role: 'operator', public_keys: [makeKey().publicLine] } });
    assert.equal(created.status, 201, created.text);
    await serve.kill('SIGKILL');
    assert.equal(serve.child.signalCode, 'SIGKILL');

    serve = await startServe(args(), cleanEnv());
    api = makeApi(serve.url);
    const token2 = await signIn(api, 'admin', adminKey);
    const op = await api('GET', '/operators/survivor', { token: token2 });
    assert.equal(op.status, 200, op.text);
    assert.equal(op.json.role, 'operator');
    const events = await api('GET', '/audit?action=operator.create&target=survivor', { token: token2 });
    assert.equal(events.json.items.length, 1);
    assert.equal(events.json.items[0].outcome, 'success');
    assert.equal(events.json.items[0].request_id, created.headers['x-request-id']);
    assert.equal((await api('GET', '/audit/verify', { token: token2 })).json.ok, true);
    // The --admin-key of the restart did not make a second admin or change the first.
    const ops = await api('GET', '/operators', { token: token2 });
    assert.deepEqual(ops.json.items.map((o: { operator_id: string }) => o.operator_id), ['admin', 'survivor']);
    // A token from before the crash is still valid: sessions are stored, not kept in memory.
    assert.equal((await api('GET', '/auth/session', { token })).status, 200);
    await serve.kill('SIGTERM');
    assert.equal(serve.child.exitCode, 0, 'SIGTERM shuts down cleanly');
    serve = undefined;
  });
});

describe('TLS by default', () => {
  it('serves HTTPS with a generated certificate whose fingerprint /status reports, kept across restarts', async () => {
    const dataDir = tempDir('corral-tls-');
    try {
      const first = await startTestOrchestrator({ http: false, dataDir, keepDataDir: true });
      let fingerprint: string;
      try {
        assert.match(first.url, /^https:\/\/127\.0\.0\.1:\d+$/);
        fingerprint = first.handle.tlsFingerprint!;
        assert.match(fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
        const status = await first.api('GET', '/status');
        assert.equal(status.status, 200);
        assert.equal(status.json.tls_fingerprint, fingerprint);
        assert.equal(status.json.status, 'ok');
        assert.equal(status.json.api_version, '0.0.13');
        // What the server presents on the wire is that certificate.
        const presented = await new Promise<string>((resolve, reject) => {
          const socket = tls.connect({ host: '127.0.0.1', port: first.handle.port, rejectUnauthorized: false }, () => {
            resolve(socket.getPeerCertificate().fingerprint256);
            socket.end();
          });
          socket.on('error', reject);
        });
        assert.equal(presented, fingerprint);
        assert.equal(new X509Certificate(readFileSync(path.join(dataDir, 'tls', 'cert.pem'))).fingerprint256, fingerprint);
        assert.equal(statSync(path.join(dataDir, 'tls', 'key.pem')).mode & 0o777, 0o600, 'the private key is 0600');
        assert.equal(statSync(path.join(dataDir, 'corral.db')).mode & 0o777, 0o600, 'the database is 0600');
        // Plain HTTP is not served on the TLS port.
        await assert.rejects(makeApi(first.url.replace('https:', 'http:'))('GET', '/status'));
        // The login flow works over TLS too.
        assert.ok(await first.adminToken());
      } finally {
        await first.close();
      }
      const second = await startTestOrchestrator({ http: false, dataDir, keepDataDir: true });
      try {
        assert.equal(second.handle.tlsFingerprint, fingerprint, 'same certificate after a restart');
        assert.equal((await second.api('GET', '/status')).json.tls_fingerprint, fingerprint);
      } finally {
        await second.close();
      }
    } finally {
      removeDir(dataDir);
    }
  });

  it('reports no fingerprint with --http', async () => {
    const plain = await startTestOrchestrator();
    try {
      assert.equal(plain.handle.tlsFingerprint, null);
      assert.equal((await plain.api('GET', '/status')).json.tls_fingerprint, null);
    } finally {
      await plain.close();
    }
  });

  it('prints the address and the fingerprint when started as corral serve', async () => {
    const dir = tempDir('corral-tls-serve-');
    let serve: ServeChild | undefined;
    try {
      serve = await startServe(['--bind', '127.0.0.1', '--port', '0', '--data-dir', dir, '--log-level', 'warn'], cleanEnv());
      assert.match(serve.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      // The banner is printed in one piece; wait for its last line.
      for (let i = 0; i < 100 && !/setup\?token=/.test(serve.output()); i++) await new Promise((r) => setTimeout(r, 20));
      const fp = /TLS certificate SHA-256: (\S+)/.exec(serve.output())?.[1];
      const cert = new X509Certificate(readFileSync(path.join(dir, 'tls', 'cert.pem')));
      assert.equal(fp, cert.fingerprint256);
      assert.match(serve.output(), new RegExp(`${serve.url.replace(/[.]/g, '\\.')}/#/setup\\?token=[A-Za-z0-9_-]+`), 'a setup link, since no admin exists');
    } finally {
      await serve?.kill('SIGTERM');
      removeDir(dir);
    }
  });
});
