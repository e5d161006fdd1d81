import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey, sshKeygen, sshKeygenSign } from '../helpers/keys.js';
import { assertProblem, removeDir, startTestOrchestrator, tempDir, type TestOrchestrator } from '../helpers/orchestrator.js';

let orch: TestOrchestrator;
let keyDir: string;

before(async () => {
  orch = await startTestOrchestrator();
  keyDir = tempDir('corral-auth-keys-');
});
after(async () => {
  await orch.close();
  removeDir(keyDir);
});

async function challenge(o: TestOrchestrator, operatorId: string) {
  const res = await o.api('POST', '/auth/challenge', { body: { operator_id: operatorId } });
  assert.equal(res.status, 200, res.text);
  return res.json as { nonce: string; message: string; namespace: string; expires_at: string };
}

async function createOperator(o: TestOrchestrator, operatorId: string, publicKeys: string[], role = 'operator') {
  const res = await o.api('POST', '/operators', { token: await o.adminToken(), body: { operator_id: operatorId, role, public_keys: publicKeys } });
  assert.equal(res.status, 201, res.text);
}

describe('POST /api/v1/auth/challenge', () => {
  it('needs no token and issues a single-use nonce with the exact message to sign', async () => {
    const c = await challenge(orch, 'admin');
    assert.match(c.nonce, /^[A-Za-z0-9_-]{20,}$/);
    assert.equal(c.message, `corral-auth-v1:${c.nonce}`);
    assert.equal(c.namespace, 'corral');
    const ttl = Date.parse(c.expires_at) - Date.now();
    assert.ok(ttl > 50_000 && ttl <= 60_000, `nonce valid ${ttl} ms`);
    assert.notEqual((await challenge(orch, 'admin')).nonce, c.nonce);
  });

  it('answers the same way for an operator that does not exist', async () => {
    const c = await challenge(orch, 'nobody-here');
    assert.equal(c.message, `corral-auth-v1:${c.nonce}`);
  });

  it('rejects bad input', async () => {
    assertProblem(await orch.api('POST', '/auth/challenge', { body: {} }), 400, 'validation-failed');
    assertProblem(await orch.api('POST', '/auth/challenge', { body: { operator_id: 'Not A Slug!' } }), 400, 'validation-failed');
    const extra = await orch.api('POST', '/auth/challenge', { body: { operator_id: 'admin', foo: 1 } });
    assertProblem(extra, 400, 'validation-failed');
    assert.deepEqual(extra.json.errors, [{ field: 'body.foo', message: 'unknown field' }]);
  });
});

describe('POST /api/v1/auth/verify', () => {
  it('accepts a raw Ed25519 signature and the token works on GET /auth/session', async () => {
    const c = await challenge(orch, 'admin');
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: orch.adminKey!.sign(c.message) } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.token, /^[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
    assert.equal(res.json.operator.operator_id, 'admin');
    assert.equal(res.json.operator.role, 'admin');
    const ttl = Date.parse(res.json.expires_at) - Date.now();
    assert.ok(ttl > 11.9 * 3600_000 && ttl <= 12 * 3600_000, `token lifetime ${ttl} ms`);
    const me = await orch.api('GET', '/auth/session', { token: res.json.token });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json.operator.operator_id, 'admin');
    assert.equal(me.json.key_fingerprint, orch.adminKey!.fingerprint);
  });

  it('accepts an SSHSIG made by the real ssh-keygen -Y sign -n corral', async () => {
    const k = sshKeygen(keyDir, 'sshsig-user');
    await createOperator(orch, 'sshsig-user', [k.publicLine]);
    const c = await challenge(orch, 'sshsig-user');
    const signature = sshKeygenSign(k.file, c.message, keyDir);
    assert.match(signature, /^-----BEGIN SSH SIGNATURE-----/);
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'sshsig-user', nonce: c.nonce, signature } });
    assert.equal(res.status, 200, res.text);
    const me = await orch.api('GET', '/auth/session', { token: res.json.token });
    assert.equal(me.json.operator.operator_id, 'sshsig-user');
  });

  it('refuses an SSHSIG made with another namespace', async () => {
    const k = sshKeygen(keyDir, 'namespace-user');
    await createOperator(orch, 'namespace-user', [k.publicLine]);
    const c = await challenge(orch, 'namespace-user');
    const signature = sshKeygenSign(k.file, c.message, keyDir, 'git');
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'namespace-user', nonce: c.nonce, signature } });
    assertProblem(res, 401, 'signature-invalid');
  });

  it('refuses an unknown nonce', async () => {
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: 'made-up-nonce', signature: orch.adminKey!.sign('corral-auth-v1:made-up-nonce') } });
    assertProblem(res, 401, 'nonce-invalid');
    assert.match(String(res.headers['www-authenticate']), /^Bearer/);
  });

  it('refuses a nonce used once already, even with a good signature', async () => {
    const c = await challenge(orch, 'admin');
    const body = { operator_id: 'admin', nonce: c.nonce, signature: orch.adminKey!.sign(c.message) };
    assert.equal((await orch.api('POST', '/auth/verify', { body })).status, 200);
    assertProblem(await orch.api('POST', '/auth/verify', { body }), 401, 'nonce-invalid');
  });

  it('uses a nonce up on a failed try', async () => {
    const c = await challenge(orch, 'admin');
    const wrong = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: makeKey().sign(c.message) } });
    assertProblem(wrong, 401, 'signature-invalid');
    const right = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: orch.adminKey!.sign(c.message) } });
    assertProblem(right, 401, 'nonce-invalid');
  });

  it('refuses an expired nonce (older than 60 s)', async () => {
    // A challenge issued 61 s ago, through the service with an injected clock.
    const c = orch.handle.services.auth.challenge('admin', Date.now() - 61_000);
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: orch.adminKey!.sign(c.message) } });
    assertProblem(res, 401, 'nonce-expired');
    // And the other way round: a fresh nonce checked 61 s later.
    const fresh = await challenge(orch, 'admin');
    assert.throws(
      () => orch.handle.services.auth.verify({ operator_id: 'admin', nonce: fresh.nonce, signature: orch.adminKey!.sign(fresh.message) }, Date.now() + 61_000),
      (err: { status?: number; code?: string }) => err.status === 401 && err.code === 'nonce-expired',
    );
  });

  it('binds the nonce to the operator it was issued for', async () => {
    const b = await orch.loginAs('operator', 'nonce-owner-b');
    const c = await challenge(orch, 'admin');
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: b.operatorId, nonce: c.nonce, signature: b.key.sign(c.message) } });
    assertProblem(res, 401, 'nonce-mismatch');
  });

  it('refuses a signature by a key the operator does not have', async () => {
    const c = await challenge(orch, 'admin');
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: makeKey().sign(c.message) } });
    assertProblem(res, 401, 'signature-invalid');
  });

  it('refuses a signature over other bytes, and an unknown operator', async () => {
    const c = await challenge(orch, 'admin');
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: orch.adminKey!.sign(c.nonce) } });
    assertProblem(res, 401, 'signature-invalid');
    const ghost = await challenge(orch, 'ghost');
    const res2 = await orch.api('POST', '/auth/verify', { body: { operator_id: 'ghost', nonce: ghost.nonce, signature: makeKey().sign(ghost.message) } });
    assertProblem(res2, 401, 'signature-invalid');
  });

  it('refuses garbage signatures with 401, not a server error', async () => {
    for (const signature of ['abcde', '!!!!', 'AAAA', '-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----']) {
      const c = await challenge(orch, 'admin');
      const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature } });
      assertProblem(res, 401, 'signature-invalid');
    }
  });

  it('rejects bad input', async () => {
    const res = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: 'x' } });
    assertProblem(res, 400, 'validation-failed');
    assert.ok(res.json.errors.some((e: { field: string }) => e.field === 'body.signature'), res.text);
  });

  it('limits failed sign-ins per operator (429), and then refuses even a good signature', async () => {
    const small = await startTestOrchestrator({ maxAuthFailures: 3 });
    try {
      for (let i = 0; i < 3; i++) {
        const c = await challenge(small, 'admin');
        assertProblem(await small.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: makeKey().sign(c.message) } }), 401);
      }
      const c = await challenge(small, 'admin');
      const res = await small.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: small.adminKey!.sign(c.message) } });
      assertProblem(res, 429, 'rate-limited');
      assert.ok(Number(res.headers['retry-after']) > 0, `retry-after ${res.headers['retry-after']}`);
      // Other operators are not affected.
      const other = await challenge(small, 'someone-else');
      assertProblem(await small.api('POST', '/auth/verify', { body: { operator_id: 'someone-else', nonce: other.nonce, signature: makeKey().sign(other.message) } }), 401);
      // Once the window has passed the right key works again (service clock moved 5 min on).
      const later = small.handle.services.auth.challenge('admin', Date.now() + 5 * 60_000 + 1000);
      const session = small.handle.services.auth.verify(
        { operator_id: 'admin', nonce: later.nonce, signature: small.adminKey!.sign(later.message) },
        Date.now() + 5 * 60_000 + 1000,
      );
      assert.equal(session.operator.operator_id, 'admin');
    } finally {
      await small.close();
    }
  });

  it('limits /auth/* requests per IP (429 problem+json with retry-after)', async () => {
    const small = await startTestOrchestrator({ authRateLimit: 3 });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await small.api('POST', '/auth/challenge', { body: { operator_id: 'admin' } })).status, 200);
      const res = await small.api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
      assertProblem(res, 429, 'rate-limited');
      const retry = Number(res.headers['retry-after']);
      assert.ok(retry > 0 && retry <= 60, `retry-after ${res.headers['retry-after']}`);
      for (let i = 0; i < 3; i++) {
        assertProblem(await small.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: `n${i}`, signature: 'AAAA' } }), 401);
      }
      assertProblem(await small.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: 'n', signature: 'AAAA' } }), 429, 'rate-limited');
      // Routes outside /auth are not limited.
      assert.equal((await small.api('GET', '/status')).status, 200);
    } finally {
      await small.close();
    }
  });
});

describe('a stale token on public routes', () => {
  it('is ignored, so an expired session never blocks status or signing in again', async () => {
    assert.equal((await orch.api('GET', '/status', { token: 'expired-or-forged' })).status, 200);
    const challenge = await orch.api('POST', '/auth/challenge', { token: 'expired-or-forged', body: { operator_id: 'admin' } });
    assert.equal(challenge.status, 200);
    assert.ok(challenge.json.nonce);
  });
});

describe('GET /api/v1/auth/session', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('GET', '/auth/session'), 401, 'unauthorized');
    assertProblem(await orch.api('GET', '/auth/session', { token: 'nope' }), 401, 'token-invalid');
    assertProblem(await orch.api('GET', '/auth/session', { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } }), 401, 'token-invalid');
  });

  it('answers for any role', async () => {
    const v = await orch.loginAs('viewer');
    const me = await orch.api('GET', '/auth/session', { token: v.token });
    assert.equal(me.status, 200);
    assert.equal(me.json.operator.role, 'viewer');
    assert.equal(me.json.key_fingerprint, v.key.fingerprint);
  });

  it('refuses a token after its lifetime (tokenTtlHours, 12 h by default)', async () => {
    const v = await orch.loginAs('viewer');
    const { auth } = orch.handle.services;
    assert.ok(auth.authenticate(v.token, Date.now() + 11.9 * 3600_000), 'valid just under 12 h');
    assert.equal(auth.authenticate(v.token, Date.now() + 12 * 3600_000 + 1000), undefined, 'gone after 12 h');
    const short = await startTestOrchestrator({ tokenTtlHours: 1 });
    try {
      const c = await challenge(short, 'admin');
      const res = await short.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.nonce, signature: short.adminKey!.sign(c.message) } });
      const ttl = Date.parse(res.json.expires_at) - Date.now();
      assert.ok(ttl > 0.9 * 3600_000 && ttl <= 3600_000, `token lifetime ${ttl} ms`);
    } finally {
      await short.close();
    }
  });

  it('refuses the token of a removed operator at once', async () => {
    const gone = await orch.loginAs('operator');
    assert.equal((await orch.api('GET', '/auth/session', { token: gone.token })).status, 200);
    const del = await orch.api('DELETE', `/operators/${gone.operatorId}`, { token: await orch.adminToken() });
    assert.equal(del.status, 204, del.text);
    assertProblem(await orch.api('GET', '/auth/session', { token: gone.token }), 401, 'token-invalid');
    assertProblem(await orch.api('GET', '/operators', { token: gone.token }), 401, 'token-invalid');
  });
});

describe('DELETE /api/v1/auth/session', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('DELETE', '/auth/session'), 401, 'unauthorized');
  });

  it('ends the calling session only', async () => {
    const v = await orch.loginAs('viewer');
    const second = await orch.login(v.operatorId, v.key);
    const res = await orch.api('DELETE', '/auth/session', { token: v.token });
    assert.equal(res.status, 204, res.text);
    assertProblem(await orch.api('GET', '/auth/session', { token: v.token }), 401, 'token-invalid');
    assert.equal((await orch.api('GET', '/auth/session', { token: second })).status, 200);
  });
});

describe('POST /api/v1/auth/keys', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('POST', '/auth/keys', { body: { public_key: makeKey().publicLine } }), 401);
  });

  it('rejects bad input', async () => {
    const v = await orch.loginAs('viewer');
    const bad = await orch.api('POST', '/auth/keys', { token: v.token, body: { public_key: 'ssh-rsa AAAAB3NzaC1yc2E' } });
    assertProblem(bad, 400, 'invalid-public-key');
    assert.equal(bad.json.errors[0].field, 'body.public_key');
    const taken = await orch.api('POST', '/auth/keys', { token: v.token, body: { public_key: orch.adminKey!.publicLine } });
    assertProblem(taken, 409, 'key-in-use');
  });

  it('adds a key to the caller, who can then sign in with it', async () => {
    const v = await orch.loginAs('viewer');
    const extra = makeKey();
    const res = await orch.api('POST', '/auth/keys', { token: v.token, body: { public_key: extra.publicLine } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.public_keys.length, 2);
    assert.ok(await orch.login(v.operatorId, extra));
  });
});

describe('DELETE /api/v1/auth/keys', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('DELETE', `/auth/keys?fingerprint=${encodeURIComponent(orch.adminKey!.fingerprint)}`), 401);
  });

  it('rejects bad input', async () => {
    const v = await orch.loginAs('viewer');
    assertProblem(await orch.api('DELETE', '/auth/keys', { token: v.token }), 400, 'validation-failed');
    assertProblem(await orch.api('DELETE', '/auth/keys?fingerprint=SHA256:nope', { token: v.token }), 404, 'key-not-found');
    // The only key cannot go.
    assertProblem(await orch.api('DELETE', `/auth/keys?fingerprint=${encodeURIComponent(v.key.fingerprint)}`, { token: v.token }), 409, 'last-key');
  });

  it('ends the sessions made with the removed key, and only those', async () => {
    const first = makeKey();
    const second = makeKey();
    await createOperator(orch, 'two-keys', [first.publicLine, second.publicLine], 'viewer');
    const withFirst = await orch.login('two-keys', first);
    const withSecond = await orch.login('two-keys', second);
    const res = await orch.api('DELETE', `/auth/keys?fingerprint=${encodeURIComponent(first.fingerprint)}`, { token: withSecond });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.public_keys, [second.publicLine]);
    assertProblem(await orch.api('GET', '/auth/session', { token: withFirst }), 401, 'token-invalid');
    assert.equal((await orch.api('GET', '/auth/session', { token: withSecond })).status, 200);
    // And the removed key no longer signs in.
    const c = await challenge(orch, 'two-keys');
    assertProblem(await orch.api('POST', '/auth/verify', { body: { operator_id: 'two-keys', nonce: c.nonce, signature: first.sign(c.message) } }), 401, 'signature-invalid');
  });
});

describe('POST /api/v1/setup', () => {
  let fresh: TestOrchestrator;
  let token: string;
  before(async () => {
    fresh = await startTestOrchestrator({ withAdmin: false });
    assert.ok(fresh.handle.setupUrl, 'a setup link while no operator exists');
    const match = /#\/setup\?token=([A-Za-z0-9_-]+)$/.exec(fresh.handle.setupUrl);
    assert.ok(match, fresh.handle.setupUrl);
    assert.ok(fresh.handle.setupUrl.startsWith(fresh.url + '/'));
    token = match[1]!;
  });
  after(() => fresh.close());

  it('reports that setup is required until the first admin exists', async () => {
    const status = await fresh.api('GET', '/status');
    assert.equal(status.json.setup_required, true);
    assert.equal((await orch.api('GET', '/status')).json.setup_required, false);
    assert.equal(orch.handle.setupUrl, null, 'no setup link when --admin-key made the admin');
  });

  it('rejects a bad public key with 400, and the link still works afterwards', async () => {
    const res = await fresh.api('POST', '/setup', { body: { token, public_key: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ' } });
    assertProblem(res, 400, 'invalid-public-key');
    assert.equal(res.json.errors[0].field, 'body.public_key');
    assertProblem(await fresh.api('POST', '/setup', { body: { token, public_key: 'ssh-ed25519 AAAAA' } }), 400, 'invalid-public-key');
    assertProblem(await fresh.api('POST', '/setup', { body: { token, public_key: makeKey().publicLine, extra: 1 } }), 400, 'validation-failed');
  });

  it('refuses a wrong token with 403', async () => {
    const res = await fresh.api('POST', '/setup', { body: { token: 'not-the-token', public_key: makeKey().publicLine } });
    assertProblem(res, 403, 'setup-token-invalid');
    assert.equal((await fresh.api('GET', '/status')).json.setup_required, true);
  });

  it('creates the first admin with the token; that admin can sign in', async () => {
    const key = makeKey('first@admin');
    const res = await fresh.api('POST', '/setup', { body: { token, public_key: key.publicLine, name: 'First Admin' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.operator_id, 'admin');
    assert.equal(res.json.role, 'admin');
    assert.equal(res.json.name, 'First Admin');
    assert.deepEqual(res.json.public_keys, [key.publicLine]);
    assert.equal((await fresh.api('GET', '/status')).json.setup_required, false);
    const adminToken = await fresh.login('admin', key);
    const audit = await fresh.api('GET', '/audit?action=setup.first_admin', { token: adminToken });
    // Most recent first: this success, the wrong token (403), the three bad requests (400).
    assert.deepEqual(
      audit.json.items.map((e: { outcome: string }) => e.outcome),
      ['success', 'denied', 'error', 'error', 'error'],
    );
    assert.equal(audit.json.items[0].actor, 'admin');
    assert.ok(!JSON.stringify(audit.json).includes(token), 'the setup token is not in the audit log');
  });

  it('refuses an expired setup link (valid 1 h) with 403', async () => {
    const other = await startTestOrchestrator({ withAdmin: false });
    try {
      // A link issued two hours ago, through the service with an injected clock.
      const old = other.handle.services.auth.issueSetupToken(Date.now() - 2 * 3600_000)!;
      assertProblem(await other.api('POST', '/setup', { body: { token: old.token, public_key: makeKey().publicLine } }), 403, 'setup-token-invalid');
      assert.equal((await other.api('GET', '/status')).json.setup_required, true);
    } finally {
      await other.close();
    }
  });

  it('answers 409 setup-done on a second use', async () => {
    assertProblem(await fresh.api('POST', '/setup', { body: { token, public_key: makeKey().publicLine } }), 409, 'setup-done');
    assertProblem(await fresh.api('POST', '/setup', { body: { token: 'anything', public_key: makeKey().publicLine } }), 409, 'setup-done');
  });
});
