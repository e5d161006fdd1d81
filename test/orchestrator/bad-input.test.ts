// Bad requests are refused with problem+json, change nothing, and are audited.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey } from '../helpers/keys.js';
import { assertProblem, startTestOrchestrator, type ApiOptions, type ApiResult, type TestOrchestrator } from '../helpers/orchestrator.js';

let orch: TestOrchestrator;
let admin: string;
let viewer: string;

before(async () => {
  orch = await startTestOrchestrator();
  admin = await orch.adminToken();
  viewer = (await orch.loginAs('viewer')).token;
});
after(() => orch.close());

async function operatorsSnapshot(): Promise<string> {
  const res = await orch.api('GET', '/operators?limit=1000', { token: admin });
  assert.equal(res.status, 200);
  return JSON.stringify(res.json);
}

async function auditEventFor(res: ApiResult) {
  const requestId = res.headers['x-request-id'];
  assert.ok(requestId, 'every answer carries x-request-id');
  const page = await orch.api('GET', '/audit?limit=1000', { token: admin });
  return page.json.items.find((e: { request_id: string }) => e.request_id === requestId);
}

/** Sends a bad request and checks: problem answer, operators unchanged, refused attempt audited. */
async function refused(method: string, path: string, options: ApiOptions, status: number, code?: string): Promise<ApiResult> {
  const before = await operatorsSnapshot();
  const res = await orch.api(method, path, options);
  assertProblem(res, status, code);
  assert.equal(await operatorsSnapshot(), before, 'the operators did not change');
  if (method !== 'GET') {
    const event = await auditEventFor(res);
    assert.ok(event, `the refused ${method} ${path} is in the audit log`);
    assert.ok(event.outcome === 'error' || event.outcome === 'denied', `outcome ${event.outcome}`);
    assert.equal(event.details.status, status);
    assert.equal(event.details.error, res.json.code);
  }
  return res;
}

const json = { 'content-type': 'application/json' };

describe('malformed JSON', () => {
  it('answers 400 invalid-json', async () => {
    await refused('POST', '/operators', { token: admin, rawBody: '{"operator_id": "x", ', headers: json }, 400, 'invalid-json');
    await refused('POST', '/operators', { token: admin, rawBody: "{operator_id: 'x'}", headers: json }, 400, 'invalid-json');
    await refused('POST', '/operators', { token: admin, rawBody: '', headers: json }, 400, 'invalid-json');
    await refused('PUT', '/audit/retention', { token: admin, rawBody: '{"days": 3', headers: json }, 400, 'invalid-json');
  });
});

describe('unknown fields', () => {
  it('answers 400 naming the field', async () => {
    const res = await refused(
      'POST',
      '/operators',
      { token: admin, body: { operator_id: 'with-foo', role: 'viewer', public_keys: [makeKey().publicLine], foo: 'bar' } },
      400,
      'validation-failed',
    );
    assert.deepEqual(res.json.errors, [{ field: 'body.foo', message: 'unknown field' }]);
    assert.match(res.json.detail, /body\.foo/);
    const retention = await refused('PUT', '/audit/retention', { token: admin, body: { days: 5, weeks: 1 } }, 400, 'validation-failed');
    assert.deepEqual(retention.json.errors, [{ field: 'body.weeks', message: 'unknown field' }]);
  });
});

describe('wrong types', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an object for a string', { operator_id: { id: 'x' }, role: 'viewer', public_keys: [makeKey().publicLine] }, 'body.operator_id'],
    ['an object for a list', { operator_id: 'typed', role: 'viewer', public_keys: { a: 1 } }, 'body.public_keys'],
    ['a list for an enum', { operator_id: 'typed', role: ['viewer', 'admin'], public_keys: [makeKey().publicLine] }, 'body.role'],
    ['a number for an enum', { operator_id: 'typed', role: 7, public_keys: [makeKey().publicLine] }, 'body.role'],
    ['null for a string', { operator_id: null, role: 'viewer', public_keys: [makeKey().publicLine] }, 'body.operator_id'],
  ];
  for (const [what, body, field] of cases) {
    it(`answers 400 naming the field for ${what}`, async () => {
      const res = await refused('POST', '/operators', { token: admin, body }, 400, 'validation-failed');
      assert.ok(res.json.errors.some((e: { field: string }) => e.field === field), `${field} in ${res.text}`);
    });
  }

  it('answers 400 naming the field for a string, a fraction or a negative number of days', async () => {
    for (const days of ['many', 1.5, -1, 100_000]) {
      const res = await refused('PUT', '/audit/retention', { token: admin, body: { days } }, 400, 'validation-failed');
      assert.deepEqual(res.json.errors.map((e: { field: string }) => e.field), ['body.days']);
    }
    assert.equal((await orch.api('GET', '/audit/retention', { token: admin })).json.days, 90, 'retention unchanged');
  });

  it('answers 400 for a body that is not an object', async () => {
    await refused('POST', '/operators', { token: admin, body: ['admin'] }, 400, 'validation-failed');
    await refused('POST', '/operators', { token: admin, body: 'admin' }, 400, 'validation-failed');
  });

  it('does not coerce JSON body types: a boolean, a string for a list, a string for a number are 400', async () => {
    const bodies: [Record<string, unknown>, string, string][] = [
      [{ operator_id: true, role: 'viewer', public_keys: [makeKey().publicLine] }, '/operators', 'body.operator_id'],
      [{ operator_id: 'one-key', role: 'viewer', public_keys: makeKey().publicLine }, '/operators', 'body.public_keys'],
    ];
    for (const [body, path, field] of bodies) {
      const res = await refused('POST', path, { token: admin, body }, 400, 'validation-failed');
      assert.ok(res.json.errors.some((e: { field: string }) => e.field === field), `${field} in ${res.text}`);
    }
    const days = await refused('PUT', '/audit/retention', { token: admin, body: { days: '30' } }, 400, 'validation-failed');
    assert.deepEqual(days.json.errors.map((e: { field: string }) => e.field), ['body.days']);
    assert.equal((await orch.api('GET', '/operators/true', { token: admin })).status, 404);
  });

  it('still coerces query strings, which are text by nature', async () => {
    const res = await orch.api('GET', '/audit?limit=2', { token: admin });
    assert.equal(res.status, 200);
    assert.ok(res.json.items.length <= 2);
  });
});

describe('oversize body', () => {
  it('answers 413 body-too-large above 1 MiB', async () => {
    const body = { operator_id: 'huge', role: 'viewer', public_keys: [makeKey().publicLine], name: 'x'.repeat(1024 * 1024) };
    await refused('POST', '/operators', { token: admin, body }, 413, 'body-too-large');
    await refused('PUT', '/audit/retention', { token: admin, rawBody: `{"days": 1${' '.repeat(1024 * 1024)}}`, headers: json }, 413, 'body-too-large');
  });
});

describe('unknown route', () => {
  it('answers 404 problem+json', async () => {
    const get = await refused('GET', '/no-such-thing', { token: admin }, 404, 'route-not-found');
    assert.match(get.json.detail, /GET \/api\/v1\/no-such-thing/);
    await refused('GET', '/no-such-thing', {}, 404, 'route-not-found');
    await refused('POST', '/no-such-thing', { token: admin, body: { a: 1 } }, 404, 'route-not-found');
    await refused('PATCH', '/operators/admin', { token: admin, body: { role: 'viewer' } }, 404, 'route-not-found');
  });
});

describe('wrong content type', () => {
  it('answers 415', async () => {
    const body = JSON.stringify({ operator_id: 'xml', role: 'viewer', public_keys: [makeKey().publicLine] });
    const xml = await refused('POST', '/operators', { token: admin, rawBody: '<operator id="xml"/>', headers: { 'content-type': 'application/xml' } }, 415, 'unsupported-media-type');
    assert.match(xml.json.detail, /application\/json/);
    await refused('POST', '/operators', { token: admin, rawBody: body, headers: { 'content-type': 'text/plain' } }, 415, 'unsupported-media-type');
    await refused('POST', '/operators', { token: admin, rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'unsupported-media-type');
    await refused('POST', '/operators', { token: admin, rawBody: body }, 415, 'unsupported-media-type');
  });
});

describe('refused for who you are', () => {
  it('records 401 and 403 as denied, changing nothing', async () => {
    const body = { operator_id: 'sneaky', role: 'admin', public_keys: [makeKey().publicLine] };
    await refused('POST', '/operators', { body }, 401, 'unauthorized');
    await refused('POST', '/operators', { token: viewer, body }, 403, 'role-required');
    await refused('DELETE', '/operators/admin', { token: viewer }, 403, 'role-required');
    const events = (await orch.api('GET', '/audit?action=operator.create&outcome=denied', { token: admin })).json.items;
    assert.ok(events.length >= 2);
  });
});

describe('a good request after all that', () => {
  it('still works and is the only change', async () => {
    const before = JSON.parse(await operatorsSnapshot()).items.length;
    const res = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'fine', role: 'viewer', public_keys: [makeKey().publicLine] } });
    assert.equal(res.status, 201, res.text);
    assert.equal(JSON.parse(await operatorsSnapshot()).items.length, before + 1);
    const event = await auditEventFor(res);
    assert.equal(event.outcome, 'success');
    assert.equal(event.action, 'operator.create');
  });
});
