import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOrchestrator } from '../../orchestrator/start.js';
import { SecretDecryptError } from '../../orchestrator/services/secret-box.js';
import { cleanEnv, startServe, type ServeChild } from '../helpers/child.js';
import { makeKey } from '../helpers/keys.js';
import { assertProblem, makeApi, removeDir, startTestOrchestrator, tempDir, type ApiOptions, type ApiResult, type TestOrchestrator } from '../helpers/orchestrator.js';

const METADATA_KEYS = ['created_at', 'created_by', 'description', 'name', 'updated_at', 'updated_by', 'used_by', 'version'];

function assertMetadataOnly(item: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(item).sort(), METADATA_KEYS, JSON.stringify(item));
}

describe('secrets API', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let operator: string;
  let operatorId: string;
  let viewer: string;

  before(async () => {
    orch = await startTestOrchestrator();
    admin = await orch.adminToken();
    ({ token: operator, operatorId } = await orch.loginAs('operator'));
    viewer = (await orch.loginAs('viewer')).token;
  });
  after(() => orch.close());

  it('creates, reads, lists, updates (versions) and deletes, answering metadata only', async () => {
    const created = await orch.api('POST', '/secrets', { token: operator, body: { name: 'DB_PASSWORD', value: 'pw-one', description: 'main database' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.location, '/api/v1/secrets/DB_PASSWORD');
    assertMetadataOnly(created.json);
    assert.equal(created.json.version, 1);
    assert.equal(created.json.description, 'main database');
    assert.equal(created.json.created_by, operatorId);
    assert.equal(created.json.updated_by, operatorId);
    assert.deepEqual(created.json.used_by, []);
    assert.ok(!created.text.includes('pw-one'));

    const got = await orch.api('GET', '/secrets/DB_PASSWORD', { token: viewer });
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, created.json);

    // Description only: same version, updated_by moves.
    const described = await orch.api('PUT', '/secrets/DB_PASSWORD', { token: admin, body: { description: 'primary database' } });
    assert.equal(described.status, 200, described.text);
    assert.equal(described.json.version, 1);
    assert.equal(described.json.description, 'primary database');
    assert.equal(described.json.updated_by, 'admin');
    assert.equal(described.json.created_by, operatorId);
    assert.equal(orch.handle.services.secrets.reveal('DB_PASSWORD'), 'pw-one');

    const rotated = await orch.api('PUT', '/secrets/DB_PASSWORD', { token: operator, body: { value: 'pw-two' } });
    assert.equal(rotated.status, 200, rotated.text);
    assertMetadataOnly(rotated.json);
    assert.equal(rotated.json.version, 2);
    assert.equal(orch.handle.services.secrets.reveal('DB_PASSWORD'), 'pw-two');
    // The same value again still counts (no guess-testing through the version).
    const again = await orch.api('PUT', '/secrets/DB_PASSWORD', { token: operator, body: { value: 'pw-two', description: 'both' } });
    assert.equal(again.json.version, 3);
    assert.equal(again.json.description, 'both');

    for (const name of ['A_SECRET', 'Z_SECRET', '_under']) {
      assert.equal((await orch.api('POST', '/secrets', { token: operator, body: { name, value: `v-${name}` } })).status, 201);
    }
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResult = await orch.api('GET', `/secrets?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: viewer });
      assert.equal(page.status, 200, page.text);
      assert.ok(page.json.items.length <= 2);
      for (const item of page.json.items) assertMetadataOnly(item);
      names.push(...page.json.items.map((i: { name: string }) => i.name));
      cursor = page.json.next_cursor;
    } while (cursor);
    assert.deepEqual(names, ['A_SECRET', 'DB_PASSWORD', 'Z_SECRET', '_under']);
    assertProblem(await orch.api('GET', '/secrets?cursor=garbage', { token: viewer }), 400, 'invalid-cursor');

    const deleted = await orch.api('DELETE', '/secrets/A_SECRET', { token: operator });
    assert.equal(deleted.status, 204);
    assertProblem(await orch.api('GET', '/secrets/A_SECRET', { token: viewer }), 404, 'secret-not-found');
    assertProblem(await orch.api('DELETE', '/secrets/A_SECRET', { token: operator }), 404, 'secret-not-found');
    assertProblem(await orch.api('PUT', '/secrets/A_SECRET', { token: operator, body: { value: 'x' } }), 404, 'secret-not-found');
    assert.equal(orch.handle.services.secrets.exists('A_SECRET'), false);
    assert.equal(orch.handle.services.secrets.exists('Z_SECRET'), true);
  });

  it('lets viewers read metadata but not write (403, nothing changes)', async () => {
    assert.equal((await orch.api('GET', '/secrets', { token: viewer })).status, 200);
    assertProblem(await orch.api('POST', '/secrets', { token: viewer, body: { name: 'BY_VIEWER', value: 'v' } }), 403, 'role-required');
    assertProblem(await orch.api('PUT', '/secrets/Z_SECRET', { token: viewer, body: { value: 'changed' } }), 403, 'role-required');
    assertProblem(await orch.api('DELETE', '/secrets/Z_SECRET', { token: viewer }), 403, 'role-required');
    assertProblem(await orch.api('GET', '/secrets'), 401, 'unauthorized');
    assert.equal(orch.handle.services.secrets.exists('BY_VIEWER'), false);
    assert.equal(orch.handle.services.secrets.reveal('Z_SECRET'), 'v-Z_SECRET');
    assert.equal((await orch.api('GET', '/secrets/Z_SECRET', { token: viewer })).json.version, 1);
  });

  it('refuses bad names and values with the field named, stores nothing, and never echoes the value', async () => {
    const long = 'LONGVALUE-' + 'q'.repeat(64 * 1024);
    const cases: [unknown, string][] = [
      [{ value: 'v' }, 'body.name'],
      [{ name: '1STARTS_WITH_DIGIT', value: 'v' }, 'body.name'],
      [{ name: 'has-dash', value: 'v' }, 'body.name'],
      [{ name: 'has space', value: 'v' }, 'body.name'],
      [{ name: 'N'.repeat(65), value: 'v' }, 'body.name'],
      [{ name: '', value: 'v' }, 'body.name'],
      [{ name: 'OK_NAME' }, 'body.value'],
      [{ name: 'OK_NAME', value: '' }, 'body.value'],
      [{ name: 'OK_NAME', value: 42 }, 'body.value'],
      [{ name: 'OK_NAME', value: long }, 'body.value'],
      [{ name: 'OK_NAME', value: 'v', extra: 'x' }, 'body.extra'],
      [{ name: 'OK_NAME', value: 'v', description: 'd'.repeat(1001) }, 'body.description'],
    ];
    for (const [body, field] of cases) {
      const res = await orch.api('POST', '/secrets', { token: operator, body });
      assertProblem(res, 400, 'validation-failed');
      assert.ok(res.json.errors.some((e: { field: string }) => e.field === field), `${field} named in ${res.text.slice(0, 500)}`);
      assert.ok(!res.text.includes('LONGVALUE'), 'the value is not echoed');
    }
    // The longest value allowed is fine.
    const max = await orch.api('POST', '/secrets', { token: operator, body: { name: 'MAX_SIZE', value: 'm'.repeat(64 * 1024) } });
    assert.equal(max.status, 201, max.text);
    assert.equal(orch.handle.services.secrets.reveal('MAX_SIZE').length, 64 * 1024);

    const put = await orch.api('PUT', '/secrets/Z_SECRET', { token: operator, body: { value: long } });
    assertProblem(put, 400, 'validation-failed');
    assert.ok(put.json.errors.some((e: { field: string }) => e.field === 'body.value'));
    assert.ok(!put.text.includes('LONGVALUE'));
    assertProblem(await orch.api('PUT', '/secrets/Z_SECRET', { token: operator, body: {} }), 400, 'validation-failed');
    const badParam = await orch.api('PUT', '/secrets/bad-name', { token: operator, body: { value: 'v' } });
    assertProblem(badParam, 400, 'validation-failed');
    assert.ok(badParam.json.errors.some((e: { field: string }) => e.field === 'params.name'));

    // A body that is not JSON: the parser's message would quote it, so it is withheld.
    const broken = await orch.api('POST', '/secrets', { token: operator, rawBody: '{"name":"OK_NAME","value":BROKENVALUE-4711}', headers: { 'content-type': 'application/json' } });
    assertProblem(broken, 400, 'invalid-json');
    assert.ok(!broken.text.includes('BROKENVALUE'), broken.text);

    assertProblem(await orch.api('GET', '/secrets/OK_NAME', { token: viewer }), 404);
    assert.equal(orch.handle.services.secrets.reveal('Z_SECRET'), 'v-Z_SECRET');
  });

  it('refuses a duplicate name with 409 and keeps the stored value', async () => {
    const res = await orch.api('POST', '/secrets', { token: operator, body: { name: 'Z_SECRET', value: 'other' } });
    assertProblem(res, 409, 'secret-exists');
    assert.equal(orch.handle.services.secrets.reveal('Z_SECRET'), 'v-Z_SECRET');
    assert.equal((await orch.api('GET', '/secrets/Z_SECRET', { token: viewer })).json.version, 1);
  });

  it('shows the modules that use a secret and refuses to delete it while they do (409 secret-in-use)', async () => {
    const secrets = orch.handle.services.secrets;
    const modulesHook = secrets.setUsedBy((name) => (name === 'Z_SECRET' ? ['web', 'backup', 'web'] : []));
    try {
      assert.deepEqual((await orch.api('GET', '/secrets/Z_SECRET', { token: viewer })).json.used_by, ['backup', 'web']);
      const list = await orch.api('GET', '/secrets', { token: viewer });
      assert.deepEqual(list.json.items.find((i: { name: string }) => i.name === 'Z_SECRET').used_by, ['backup', 'web']);
      const res = await orch.api('DELETE', '/secrets/Z_SECRET', { token: operator });
      assertProblem(res, 409, 'secret-in-use');
      assert.match(res.json.detail, /backup, web/);
      assert.equal(secrets.exists('Z_SECRET'), true);
    } finally {
      secrets.setUsedBy(modulesHook);
    }
    assert.equal((await orch.api('DELETE', '/secrets/Z_SECRET', { token: operator })).status, 204);
  });

  it('audits secret.create, secret.update and secret.delete without values', async () => {
    const res = await orch.api('GET', '/audit?action=secret.*&limit=1000', { token: admin });
    assert.equal(res.status, 200, res.text);
    const events = res.json.items as { action: string; target: string | null; outcome: string; details: Record<string, unknown> }[];
    const actions = new Set(events.map((e) => e.action));
    for (const a of ['secret.create', 'secret.update', 'secret.delete']) assert.ok(actions.has(a), `${a} recorded`);
    const update = events.find((e) => e.action === 'secret.update' && e.target === 'DB_PASSWORD' && e.outcome === 'success' && e.details.rotated === true);
    assert.ok(update, 'a value change is recorded as rotated');
    for (const e of events) assert.ok(!('request' in e.details), `no request body in ${JSON.stringify(e)}`);
    for (const v of ['pw-one', 'pw-two', 'v-Z_SECRET', 'LONGVALUE', 'BROKENVALUE', 'mmmmmmmm']) assert.ok(!res.text.includes(v), `${v} not in the audit log`);
    // Refused writes are on the record too, with the fields sent but not their contents.
    assert.ok(events.some((e) => e.action === 'secret.create' && e.outcome === 'error' && Array.isArray(e.details.fields)));
    assert.equal((await orch.api('GET', '/audit/verify', { token: admin })).json.ok, true, 'the hash chain holds');
  });
});

describe('secrets at rest and across restarts', () => {
  let dir: string;
  before(() => {
    dir = tempDir('corral-secrets-restart-');
  });
  after(() => removeDir(dir));

  it('creates master.key 0600, decrypts after a restart, and fails clearly (without crashing) under another key', async () => {
    const dataDir = path.join(dir, 'data');
    const first = await startTestOrchestrator({ dataDir, keepDataDir: true });
    const keyFile = path.join(dataDir, 'master.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(statSync(keyFile).size, 32);
    const token = await first.adminToken();
    assert.equal((await first.api('POST', '/secrets', { token, body: { name: 'KEPT', value: 'survives-restarts' } })).status, 201);
    await first.close();

    const second = await startTestOrchestrator({ dataDir, keepDataDir: true, admin: first.adminKey });
    try {
      assert.equal(second.handle.services.secrets.reveal('KEPT'), 'survives-restarts');
      assert.deepEqual(second.handle.services.secrets.undecryptable(), []);
    } finally {
      await second.close();
    }

    // Another CORRAL_MASTER_KEY: the server starts and serves; revealing says what is wrong.
    const other = await startOrchestrator(
      { dataDir, port: 0, bind: '127.0.0.1', http: true, logLevel: 'silent', discoveryBroadcast: false },
      { CORRAL_MASTER_KEY: randomBytes(32).toString('base64') },
    );
    try {
      assert.throws(
        () => other.services.secrets.reveal('KEPT'),
        (err: unknown) => err instanceof SecretDecryptError && /KEPT/.test(err.message) && /master key/.test(err.message) && !err.message.includes('survives'),
      );
      assert.deepEqual(other.services.secrets.undecryptable(), ['KEPT']);
      const api = makeApi(other.url);
      assert.equal((await api('GET', '/status')).status, 200, 'still serving');
    } finally {
      await other.close();
    }

    // A master.key readable by others stops the start with a clear message.
    const { chmodSync } = await import('node:fs');
    chmodSync(keyFile, 0o640);
    await assert.rejects(startTestOrchestrator({ dataDir, keepDataDir: true }), /master\.key has mode 0640.*chmod 600/);
    chmodSync(keyFile, 0o600);
  });
});

describe('a secret value leaks nowhere', () => {
  let dir: string;
  let serve: ServeChild | undefined;
  const adminKey = makeKey('admin@secrets-leak');

  before(() => {
    dir = tempDir('corral-secrets-leak-');
    writeFileSync(path.join(dir, 'admin.pub'), adminKey.publicLine + '\n');
  });
  after(async () => {
    await serve?.kill();
    removeDir(dir);
  });

  it('is in no API answer, no audit event, no database byte and no log line (trace level)', async () => {
    const value = `Corral-Leak-Canary-${randomBytes(12).toString('hex')}`;
    const updated = `Corral-Leak-Canary-2-${randomBytes(12).toString('hex')}`;
    const dataDir = path.join(dir, 'data');
    const args = ['--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--log-level', 'trace', '--admin-key', path.join(dir, 'admin.pub')];
    serve = await startServe(args, cleanEnv());
    const rawApi = makeApi(serve.url);
    const answers: ApiResult[] = [];
    const api = async (method: string, p: string, options?: ApiOptions) => {
      const res = await rawApi(method, p, options);
      answers.push(res);
      return res;
    };
    const challenge = await api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
    const verify = await api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: challenge.json.nonce, signature: adminKey.sign(challenge.json.message) } });
    assert.equal(verify.status, 200, verify.text);
    const token = verify.json.token as string;

    assert.equal((await api('POST', '/secrets', { token, body: { name: 'CANARY', value, description: 'leak test' } })).status, 201);
    assert.equal((await api('PUT', '/secrets/CANARY', { token, body: { value: updated } })).status, 200);
    // Refused writes that carry the value: a duplicate, a validation failure, a body that is not JSON.
    assert.equal((await api('POST', '/secrets', { token, body: { name: 'CANARY', value } })).status, 409);
    assert.equal((await api('POST', '/secrets', { token, body: { name: 'CANARY2', value, unknown: value } })).status, 400);
    assert.equal((await api('PUT', '/secrets/CANARY', { token, body: { value: value + 'x'.repeat(64 * 1024) } })).status, 400);
    assert.equal(
      (await api('POST', '/secrets', { token, rawBody: `{"name":"CANARY3","value":${value}}`, headers: { 'content-type': 'application/json' } })).status,
      400,
    );
    assert.equal((await api('GET', '/secrets', { token })).status, 200);
    assert.equal((await api('GET', '/secrets/CANARY', { token })).status, 200);
    assert.equal((await api('GET', '/audit?limit=1000', { token })).status, 200);
    assert.equal((await api('GET', '/openapi.json')).status, 200);

    const dbFiles = ['corral.db', 'corral.db-wal', 'corral.db-shm'].map((f) => path.join(dataDir, f));
    const readDb = () => Buffer.concat(dbFiles.filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    const whileRunning = readDb();
    await serve.kill();
    const afterStop = readDb();
    const logs = serve.output();

    const needles: [string, Buffer][] = [];
    for (const v of [value, updated]) {
      needles.push([`${v} (utf8)`, Buffer.from(v)]);
      needles.push([`${v} (utf16le)`, Buffer.from(v, 'utf16le')]);
      for (const enc of ['base64', 'base64url', 'hex'] as const) needles.push([`${v} (${enc})`, Buffer.from(Buffer.from(v).toString(enc))]);
    }
    const haystacks: [string, Buffer][] = [
      ['the database while running (db, wal, shm)', whileRunning],
      ['the database after stopping', afterStop],
      ['the logs', Buffer.from(logs)],
      ...answers.map((a, i): [string, Buffer] => [`answer ${i}`, Buffer.from(JSON.stringify(a.headers) + a.text)]),
    ];
    assert.ok(logs.includes('secret.create') || logs.includes('/secrets'), 'the secret requests were logged at all');
    assert.ok(whileRunning.length > 0);
    for (const [where, hay] of haystacks) {
      for (const [what, needle] of needles) assert.ok(!hay.includes(needle), `${what} found in ${where}`);
      // Not even a recognisable fragment of the random part.
      assert.ok(!hay.includes(Buffer.from(value.slice(-16))), `a fragment of the value in ${where}`);
    }
    assert.equal(statSync(path.join(dataDir, 'master.key')).mode & 0o777, 0o600);
  });
});
