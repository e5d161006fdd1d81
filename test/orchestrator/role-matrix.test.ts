// Who may call what, driven by the spec's Endpoints table: every spec route
// that is built is called with no token and as viewer, operator and admin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Role } from '../../common/auth.js';
import { makeKey } from '../helpers/keys.js';
import { assertProblem, startTestOrchestrator, type ApiResult, type TestOrchestrator } from '../helpers/orchestrator.js';
import { API_PREFIX, isBuilt, loadSpecRoutes, routeName, type SpecRoute } from '../helpers/spec-table.js';

/** Reachable without a token (DESIGN.md, Authentication and roles). */
const PUBLIC = new Set(['GET /status', 'POST /auth/challenge', 'POST /auth/verify']);
/** Reads a viewer may not make (DESIGN.md: viewers may not read terminal transcripts). */
const VIEWER_DENIED_READS = new Set(['GET /terminal/session/{session_id}/transcript']);
/**
 * Writes a viewer may make: only their own read markers (docs/notifications.md says why
 * this departs from DESIGN.md's "viewers only GET": they change nothing in the fleet).
 */
const VIEWER_OWN_WRITES = new Set(['POST /notifications/read-all', 'POST /notifications/{id}/read']);

type Caller = 'none' | Role;

// The orchestrator is started before the tests are declared, because which
// tests exist depends on what its OpenAPI document says is built.
const orch: TestOrchestrator = await startTestOrchestrator();
const spec = loadSpecRoutes();
const paths = (await orch.api('GET', '/openapi.json')).json.paths as Record<string, Record<string, unknown>>;
// Deletes last, so nothing a later check relies on is gone (they only ever get dummy targets anyway).
const built = spec.filter((r) => isBuilt(r, paths)).sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
const notBuilt = spec.filter((r) => !isBuilt(r, paths));

const tokens: Partial<Record<Role, string>> = {};

/** Path parameters that name nothing that exists, so no call can destroy anything. */
function concretePath(route: SpecRoute): string {
  let p = route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'id' ? '00000000-0000-4000-8000-000000000000' : `no-such-${name.replace(/_/g, '-')}`));
  if (route.method === 'DELETE' && route.path === '/audit') p += '?before=1970-01-01T00:00:00.000Z'; // prunes nothing
  return p;
}

let made = 0;
/** A sensible body for the route; unknown routes get {} (a 400 still shows the caller got past the role check). */
async function bodyFor(route: SpecRoute): Promise<unknown> {
  switch (routeName(route)) {
    case 'POST /auth/challenge':
      return { operator_id: 'admin' };
    case 'POST /auth/verify': {
      const challenge = await orch.api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
      return { operator_id: 'admin', nonce: challenge.json.nonce, signature: orch.adminKey!.sign(challenge.json.message) };
    }
    case 'POST /operators':
      return { operator_id: `matrix-${++made}`, role: 'viewer', public_keys: [makeKey().publicLine] };
    case 'PUT /audit/retention':
      return { days: 90 };
  }
  return route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
}

async function call(route: SpecRoute, caller: Caller): Promise<ApiResult> {
  return orch.api(route.method, concretePath(route), { token: caller === 'none' ? undefined : tokens[caller], body: await bodyFor(route) });
}

function expected(route: SpecRoute, caller: Caller): { allowed: true } | { allowed: false; status: 401 | 403; needs?: Role } {
  const name = routeName(route);
  if (PUBLIC.has(name)) return { allowed: true };
  if (caller === 'none') return { allowed: false, status: 401 };
  if (route.adminOnly) return caller === 'admin' ? { allowed: true } : { allowed: false, status: 403, needs: 'admin' };
  if (route.method === 'GET' && !VIEWER_DENIED_READS.has(name)) return { allowed: true };
  if (VIEWER_OWN_WRITES.has(name)) return { allowed: true };
  return caller === 'viewer' ? { allowed: false, status: 403, needs: 'operator' } : { allowed: true };
}

before(async () => {
  tokens.admin = await orch.adminToken();
  tokens.operator = (await orch.loginAs('operator')).token;
  tokens.viewer = (await orch.loginAs('viewer')).token;
});
after(() => orch.close());

describe('role matrix from the spec Endpoints table', () => {
  it('covers the spec routes that are built', (t) => {
    assert.ok(built.length >= 11, `only ${built.length} spec routes are built`);
    t.diagnostic(`covered ${built.length} of ${spec.length} spec routes: ${built.map(routeName).join(', ')}`);
    t.diagnostic(`not built yet (${notBuilt.length}): ${notBuilt.map(routeName).join(', ')}`);
  });

  for (const route of built) {
    const name = routeName(route);
    describe(`${route.method} ${API_PREFIX}${route.path}${route.adminOnly ? ' (Admin only)' : ''}`, () => {
      for (const caller of ['none', 'viewer', 'operator', 'admin'] as const) {
        const want = expected(route, caller);
        const label = caller === 'none' ? 'without a token' : `as ${caller}`;
        it(want.allowed ? `is allowed ${label}` : `answers ${want.status} ${label}`, async () => {
          const res = await call(route, caller);
          if (want.allowed) {
            assert.ok(res.status !== 401 && res.status !== 403, `${name} ${label}: got ${res.status} ${res.text}`);
            assert.ok(res.status < 500, `${name} ${label}: got ${res.status} ${res.text}`);
            return;
          }
          assertProblem(res, want.status, want.status === 401 ? 'unauthorized' : 'role-required');
          if (want.status === 401) assert.match(String(res.headers['www-authenticate']), /^Bearer/);
          if (want.needs) assert.match(res.json.detail, new RegExp(`needs the ${want.needs} role`), res.json.detail);
        });
      }
    });
  }

  it('refuses a token that is not a valid session on every non-public route', async () => {
    for (const route of built.filter((r) => !PUBLIC.has(routeName(r)))) {
      const res = await orch.api(route.method, concretePath(route), { token: 'not-a-real-token', body: await bodyFor(route) });
      assertProblem(res, 401, 'token-invalid');
    }
  });
});
