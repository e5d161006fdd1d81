import SwaggerParser from '@apidevtools/swagger-parser';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';
import { API_PREFIX, isBuilt, loadSpecRoutes, pathShape, routeName, SPEC_FILE, type SpecRoute } from '../helpers/spec-table.js';

/** The routes this issue builds; all of them must be in the document. */
const BUILT_IN_THIS_ISSUE = [
  'GET /status',
  'POST /auth/challenge',
  'POST /auth/verify',
  'GET /operators',
  'POST /operators',
  'GET /operators/{operator_id}',
  'DELETE /operators/{operator_id}',
  'GET /audit',
  'DELETE /audit',
  'GET /audit/retention',
  'PUT /audit/retention',
];

type Operation = { summary?: string; security?: unknown[]; responses?: Record<string, unknown> };
type Paths = Record<string, Record<string, Operation>>;

let orch: TestOrchestrator;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document is plain JSON
let doc: any;
let spec: SpecRoute[];

before(async () => {
  orch = await startTestOrchestrator();
  const res = await orch.api('GET', '/openapi.json');
  assert.equal(res.status, 200);
  doc = res.json;
  spec = loadSpecRoutes();
});
after(() => orch.close());

describe('GET /api/v1/openapi.json', () => {
  it('is reachable without a token and is a valid OpenAPI 3.1.0 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('carries the spec version and license', () => {
    assert.equal(doc.info.version, '0.0.13');
    assert.equal(doc.info.license.name, 'MIT OR Apache-2.0');
  });

  it('has every route built in this issue', () => {
    const paths = doc.paths as Paths;
    const missing = BUILT_IN_THIS_ISSUE.filter((name) => {
      const [method, p] = name.split(' ') as [string, string];
      return !paths[API_PREFIX + p]?.[method.toLowerCase()];
    });
    assert.deepEqual(missing, []);
  });

  it('uses exactly the spec path for every spec route it builds, and reports what is not built yet', (t) => {
    assert.ok(spec.length > 60, `the spec table at ${SPEC_FILE} has ${spec.length} routes`);
    const paths = doc.paths as Paths;
    const built = spec.filter((r) => isBuilt(r, paths));
    for (const route of built) {
      const exact = paths[API_PREFIX + route.path]?.[route.method.toLowerCase()];
      const actual = Object.keys(paths).filter((p) => pathShape(p) === pathShape(API_PREFIX + route.path));
      assert.ok(exact, `${routeName(route)} is built as ${actual.join(', ')}, not with the spec's path`);
    }
    const notBuilt = spec.filter((r) => !isBuilt(r, paths)).map(routeName);
    t.diagnostic(`${built.length} of ${spec.length} spec routes are built`);
    t.diagnostic(`not built yet (${notBuilt.length}): ${notBuilt.join(', ')}`);
    for (const name of BUILT_IN_THIS_ISSUE) assert.ok(built.some((r) => routeName(r) === name), `${name} is in the spec table`);
  });

  it('documents authentication and the standard problem answers on every API operation', () => {
    const publicRoutes = new Set(['GET /status', 'POST /auth/challenge', 'POST /auth/verify', 'POST /setup']);
    for (const [p, ops] of Object.entries(doc.paths as Paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method.toUpperCase()} ${p.slice(API_PREFIX.length)}`;
        const responses = op.responses ?? {};
        assert.ok(responses['400'] && responses['500'], `${name} documents 400 and 500`);
        if (publicRoutes.has(name)) {
          assert.deepEqual(op.security, [], `${name} is public`);
        } else {
          assert.deepEqual(op.security, [{ bearerAuth: [] }], `${name} needs a bearer token`);
          assert.ok(responses['401'] && responses['403'], `${name} documents 401 and 403`);
        }
      }
    }
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
  });
});
