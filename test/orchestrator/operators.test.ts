import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey } from '../helpers/keys.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

let orch: TestOrchestrator;
let admin: string;
let viewer: string;
let operator: string;

before(async () => {
  orch = await startTestOrchestrator();
  admin = await orch.adminToken();
  viewer = (await orch.loginAs('viewer', 'vera')).token;
  operator = (await orch.loginAs('operator', 'otto')).token;
});
after(() => orch.close());

describe('POST /api/v1/operators', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('POST', '/operators', { body: { operator_id: 'x', role: 'viewer', public_keys: [makeKey().publicLine] } }), 401);
  });

  it('needs the admin role', async () => {
    const body = { operator_id: 'by-viewer', role: 'viewer', public_keys: [makeKey().publicLine] };
    const v = await orch.api('POST', '/operators', { token: viewer, body });
    assertProblem(v, 403, 'role-required');
    assert.match(v.json.detail, /admin/);
    assertProblem(await orch.api('POST', '/operators', { token: operator, body }), 403, 'role-required');
    assertProblem(await orch.api('GET', '/operators/by-viewer', { token: admin }), 404, 'operator-not-found');
  });

  it('rejects bad input', async () => {
    const key = makeKey().publicLine;
    const cases: [unknown, string][] = [
      [{ role: 'viewer', public_keys: [key] }, 'body.operator_id'],
      [{ operator_id: 'UPPER', role: 'viewer', public_keys: [key] }, 'body.operator_id'],
      [{ operator_id: 'ok-id', role: 'root', public_keys: [key] }, 'body.role'],
      [{ operator_id: 'ok-id', role: 'viewer', public_keys: [] }, 'body.public_keys'],
      [{ operator_id: 'ok-id', role: 'viewer', public_keys: ['ssh-rsa AAAAB3NzaC1yc2E'] }, 'body.public_keys.0'],
      [{ operator_id: 'ok-id', role: 'viewer', public_keys: [key, 'ssh-ed25519 AAAAA'] }, 'body.public_keys.1'],
    ];
    for (const [body, field] of cases) {
      const res = await orch.api('POST', '/operators', { token: admin, body });
      assertProblem(res, 400);
      assert.ok(res.json.errors.some((e: { field: string }) => e.field === field), `${field} named in ${res.text}`);
    }
    assertProblem(await orch.api('GET', '/operators/ok-id', { token: admin }), 404);
  });

  it('creates an operator (201, Location) that GET returns', async () => {
    const key = makeKey('ana@laptop');
    const res = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'ana', name: 'Ana Lopez', role: 'operator', public_keys: [key.publicLine] } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.location, '/api/v1/operators/ana');
    assert.equal(res.json.operator_id, 'ana');
    assert.equal(res.json.name, 'Ana Lopez');
    assert.equal(res.json.role, 'operator');
    assert.deepEqual(res.json.public_keys, [key.publicLine]);
    assert.ok(Math.abs(Date.parse(res.json.created_at) - Date.now()) < 60_000);
    const got = await orch.api('GET', '/operators/ana', { token: viewer });
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, res.json);
    // The name defaults to the id.
    const noName = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'no-name', role: 'viewer', public_keys: [makeKey().publicLine] } });
    assert.equal(noName.json.name, 'no-name');
  });

  it('refuses a duplicate operator id with 409', async () => {
    const res = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'ana', role: 'viewer', public_keys: [makeKey().publicLine] } });
    assertProblem(res, 409, 'operator-exists');
    assert.equal((await orch.api('GET', '/operators/ana', { token: admin })).json.role, 'operator', 'unchanged');
  });

  it('refuses a key that another operator uses with 409 (comment aside)', async () => {
    const adminLine = orch.adminKey!.publicLine.split(' ').slice(0, 2).join(' ') + ' other-comment';
    const res = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'thief', role: 'viewer', public_keys: [adminLine] } });
    assertProblem(res, 409, 'key-in-use');
    assert.match(res.json.detail, /admin/);
    assertProblem(await orch.api('GET', '/operators/thief', { token: admin }), 404);
    const twice = makeKey().publicLine;
    assertProblem(await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'twice', role: 'viewer', public_keys: [twice, twice] } }), 409, 'duplicate-key');
  });
});

describe('GET /api/v1/operators', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('GET', '/operators'), 401);
  });

  it('lists every operator for any role, ordered by id', async () => {
    const res = await orch.api('GET', '/operators', { token: viewer });
    assert.equal(res.status, 200);
    const ids = res.json.items.map((o: { operator_id: string }) => o.operator_id);
    for (const id of ['admin', 'ana', 'otto', 'vera']) assert.ok(ids.includes(id), `${id} in ${ids}`);
    assert.deepEqual(ids, [...ids].sort());
    assert.equal(res.json.next_cursor, null);
  });

  it('pages with limit and next_cursor, without gaps or repeats', async () => {
    const all = (await orch.api('GET', '/operators', { token: viewer })).json.items.map((o: { operator_id: string }) => o.operator_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await orch.api('GET', `/operators?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: viewer });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.items.length, 1);
      seen.push(res.json.items[0].operator_id);
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    assert.deepEqual(seen, all);
  });

  it('rejects bad input', async () => {
    assertProblem(await orch.api('GET', '/operators?limit=0', { token: viewer }), 400, 'validation-failed');
    assertProblem(await orch.api('GET', '/operators?limit=1001', { token: viewer }), 400, 'validation-failed');
    assertProblem(await orch.api('GET', '/operators?cursor=%7Bnot-ours', { token: viewer }), 400, 'invalid-cursor');
    const unknown = await orch.api('GET', '/operators?color=red', { token: viewer });
    assertProblem(unknown, 400, 'validation-failed');
    assert.equal(unknown.json.errors[0].field, 'querystring.color');
  });
});

describe('GET /api/v1/operators/{operator_id}', () => {
  it('needs authentication', async () => {
    assertProblem(await orch.api('GET', '/operators/admin'), 401);
  });

  it('answers 404 for an unknown operator and 400 for an id that cannot be one', async () => {
    assertProblem(await orch.api('GET', '/operators/nobody', { token: viewer }), 404, 'operator-not-found');
    assertProblem(await orch.api('GET', '/operators/Not%20Valid', { token: viewer }), 400, 'validation-failed');
  });

  it('returns the operator', async () => {
    const res = await orch.api('GET', '/operators/admin', { token: operator });
    assert.equal(res.status, 200);
    assert.equal(res.json.role, 'admin');
    assert.deepEqual(res.json.public_keys, [orch.adminKey!.publicLine]);
  });
});

describe('DELETE /api/v1/operators/{operator_id}', () => {
  it('needs authentication and the admin role', async () => {
    assertProblem(await orch.api('DELETE', '/operators/ana'), 401);
    assertProblem(await orch.api('DELETE', '/operators/ana', { token: viewer }), 403, 'role-required');
    assertProblem(await orch.api('DELETE', '/operators/ana', { token: operator }), 403, 'role-required');
    assert.equal((await orch.api('GET', '/operators/ana', { token: admin })).status, 200);
  });

  it('answers 404 for an unknown operator', async () => {
    assertProblem(await orch.api('DELETE', '/operators/nobody', { token: admin }), 404, 'operator-not-found');
  });

  it('removes an operator; its key can then be given to someone else', async () => {
    const key = makeKey();
    assert.equal((await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'temp', role: 'viewer', public_keys: [key.publicLine] } })).status, 201);
    const res = await orch.api('DELETE', '/operators/temp', { token: admin });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertProblem(await orch.api('GET', '/operators/temp', { token: admin }), 404);
    assertProblem(await orch.api('DELETE', '/operators/temp', { token: admin }), 404);
    const reuse = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'temp2', role: 'viewer', public_keys: [key.publicLine] } });
    assert.equal(reuse.status, 201, reuse.text);
  });

  it('refuses to remove the last admin (409), but allows it once a second admin exists', async () => {
    const res = await orch.api('DELETE', '/operators/admin', { token: admin });
    assertProblem(res, 409, 'last-admin');
    assert.equal((await orch.api('GET', '/operators/admin', { token: admin })).status, 200);

    const second = await orch.loginAs('admin', 'second-admin');
    const removed = await orch.api('DELETE', '/operators/admin', { token: second.token });
    assert.equal(removed.status, 204, removed.text);
    assertProblem(await orch.api('GET', '/operators/admin', { token: second.token }), 404);
    // The removed admin's session is gone, and the new last admin is protected in turn.
    assertProblem(await orch.api('GET', '/operators', { token: admin }), 401, 'token-invalid');
    assertProblem(await orch.api('DELETE', '/operators/second-admin', { token: second.token }), 409, 'last-admin');
  });
});
