// Bad input to the desired-state API, over real HTTP with a real agent online: every refusal
// is a clear problem+json (status, code, errors[] naming the line and the resource where
// there is one) and nothing is stored: no module, no revision, no operation, no drift record.
// (test/orchestrator/modules.test.ts covers bad YAML indentation, unknown types and
// properties, a two-resource cycle, "../etc" and "a/b" names, unknown secrets, 413 and
// GET /modules/..%2Fetc; state-apply.test.ts covers the basic apply refusals.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BelievedState } from '../../common/schemas/state.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startAcceptedAgent, uploadModule } from '../helpers/fleet.js';
import { assertProblem, startTestOrchestrator, type ApiResult, type TestOrchestrator } from '../helpers/orchestrator.js';

const NODE = 'bad-input-1';

interface ProblemError {
  field?: string;
  message: string;
  line?: number;
  resource?: string;
}

const GOOD = 'name: good\nresources:\n  - id: a\n    type: directory\n    path: /tmp/corral-bad-input-never-applied\n';

describe('bad desired-state input is refused clearly and stores nothing', () => {
  let orch: TestOrchestrator;
  let agent: AgentProcess;
  let op: string;

  /** What must not move: module names and revisions, operations, the agent's drift records. */
  async function stored(): Promise<string> {
    const modules = await orch.api('GET', '/modules?limit=1000', { token: op });
    const ops = await orch.api('GET', '/state/operations?limit=1000', { token: op });
    const drift = await orch.api('GET', `/agents/${NODE}/drift`, { token: op });
    assert.equal(modules.status, 200, modules.text);
    assert.equal(ops.status, 200, ops.text);
    assert.equal(drift.status, 200, drift.text);
    return JSON.stringify({
      modules: modules.json.items.map((m: { name: string; revision: number; content_hash: string }) => [m.name, m.revision, m.content_hash]),
      operations: ops.json.items.map((o: { operation_id: string; status: string }) => [o.operation_id, o.status]),
      drift: drift.json.items.length,
    });
  }

  before(async () => {
    orch = await startTestOrchestrator({ heartbeatS: 2 });
    op = (await orch.loginAs('operator', 'bad-op')).token;
    agent = await startAcceptedAgent(orch, await orch.adminToken(), NODE);
    await uploadModule(orch, op, GOOD);
  });
  after(async () => {
    await agent?.dispose();
    await orch?.close();
  });

  it('module validation names the line and the resource for each kind of mistake', async () => {
    const before = await stored();
    const cases: { what: string; text: string; line: number; resource?: string; field?: string; message: RegExp }[] = [
      { what: 'a duplicate key', text: 'name: x\nresources:\n  - id: a\n    type: directory\n    path: /a\n    path: /b\n', line: 6, message: /YAML: .*unique/ },
      { what: 'a tab for indentation', text: 'name: x\nresources:\n  - id: a\n\ttype: directory\n', line: 4, message: /^line 4: YAML: / },
      { what: 'not a map', text: '- just\n- a list\n', line: 1, message: /a module is a map with name, description, vars and resources; this is a list/ },
      { what: 'a resource requiring itself', text: 'name: x\nresources:\n  - id: a\n    type: directory\n    path: /a\n    requires: [a]\n', line: 6, resource: 'a', message: /cycle: a -> a/ },
      {
        what: 'a three-resource cycle',
        text: 'name: x\nresources:\n  - {id: a, type: directory, path: /a, requires: [c]}\n  - {id: b, type: directory, path: /b, requires: [a]}\n  - {id: c, type: directory, path: /c, requires: [b]}\n',
        line: 3,
        resource: 'a',
        message: /requires form a cycle: a -> c -> b -> a/,
      },
      {
        what: 'an unresolved requires',
        text: 'name: x\nresources:\n  - id: site\n    type: directory\n    path: /a\n  - id: page\n    type: file\n    path: /a/i\n    content: hi\n    requires: [stie]\n',
        line: 10,
        resource: 'page',
        field: 'requires',
        message: /requires "stie": no resource has this id \(did you mean "site"\?\)/,
      },
      {
        what: 'an unresolved notify',
        text: 'name: x\nresources:\n  - id: conf\n    type: file\n    path: /a\n    content: hi\n    notify: [reload]\n',
        line: 7,
        resource: 'conf',
        field: 'notify',
        message: /notify "reload": no resource has this id/,
      },
      {
        what: 'notify of a type that cannot be notified',
        text: 'name: x\nresources:\n  - id: conf\n    type: file\n    path: /a\n    content: hi\n    notify: [other]\n  - id: other\n    type: directory\n    path: /b\n',
        line: 7,
        resource: 'conf',
        message: /only a service \(restarted\) or a script \(re-run\) can be notified; it is a directory/,
      },
      { what: 'a duplicate id', text: 'name: x\nresources:\n  - {id: a, type: directory, path: /a}\n  - {id: a, type: directory, path: /b}\n', line: 4, resource: 'a', message: /duplicate id "a" \(first used on line 3\)/ },
      { what: 'an id with a slash', text: 'name: x\nresources:\n  - id: web/conf\n    type: directory\n    path: /a\n', line: 3, message: /resources\[0\]: id must match/ },
      { what: 'an id that climbs', text: 'name: x\nresources:\n  - id: ../../etc\n    type: directory\n    path: /a\n', line: 3, message: /id must match/ },
      { what: 'a module name that climbs', text: 'name: ../x\nresources:\n  - {id: a, type: directory, path: /a}\n', line: 1, message: /name "\.\.\/x" is not allowed/ },
      { what: 'a relative path', text: 'name: x\nresources:\n  - id: a\n    type: file\n    path: etc/passwd\n    content: x\n', line: 5, resource: 'a', message: /path must be an absolute path/ },
      { what: 'an undeclared var in a template', text: 'name: x\nvars:\n  port: 80\nresources:\n  - id: a\n    type: file\n    path: /a\n    template: "{{ vars.prot }}"\n', line: 8, resource: 'a', message: /vars\.prot, which is not declared under vars \(did you mean "port"\?\)/ },
      { what: 'an unclosed template', text: 'name: x\nresources:\n  - id: a\n    type: file\n    path: /a\n    template: "{{ vars.x"\n', line: 6, resource: 'a', message: /./ },
      { what: 'an unknown template namespace', text: 'name: x\nresources:\n  - id: a\n    type: file\n    path: /a\n    template: "{{ env.HOME }}"\n', line: 6, resource: 'a', message: /env/ },
      { what: 'content and template', text: 'name: x\nresources:\n  - id: a\n    type: file\n    path: /a\n    content: x\n    template: y\n', line: 7, resource: 'a', message: /either content or template, not both/ },
      { what: 'a missing required property', text: 'name: x\nresources:\n  - id: a\n    type: script\n', line: 3, resource: 'a', message: /a script needs "run"/ },
      { what: 'an out-of-range timeout', text: 'name: x\nresources:\n  - id: a\n    type: script\n    run: "true"\n    timeout: 0\n', line: 6, resource: 'a', message: /timeout/ },
      { what: 'no resources', text: 'name: x\nresources: []\n', line: 2, message: /resources is empty/ },
    ];
    for (const c of cases) {
      const res = await orch.api('POST', '/modules', { token: op, body: { content: c.text } });
      assertProblem(res, 400, 'invalid-module');
      const errors = res.json.errors as ProblemError[];
      assert.ok(Array.isArray(errors) && errors.length >= 1, `${c.what}: ${res.text}`);
      const e = errors[0]!;
      assert.equal(e.line, c.line, `${c.what}: ${res.text}`);
      assert.equal(e.resource, c.resource, `${c.what}: ${res.text}`);
      assert.match(e.message, c.message, c.what);
      assert.ok(e.message.startsWith(c.resource ? `line ${c.line}, resource "${c.resource}": ` : `line ${c.line}: `), `${c.what}: ${e.message}`);
      if (c.field) assert.equal(e.field, 'body.content', c.what);
      assert.match(res.json.detail, /line \d+/, c.what);
    }
    assert.equal(await stored(), before, 'no module and no revision was stored');
  });

  it('several mistakes in one module are all reported, each with its line', async () => {
    const text = 'name: x\nresources:\n  - id: a\n    type: fiel\n    path: /a\n  - id: b\n    type: directory\n    path: b\n    requires: [zz]\n';
    const res = await orch.api('POST', '/modules', { token: op, body: { content: text } });
    assertProblem(res, 400, 'invalid-module');
    const errors = res.json.errors as ProblemError[];
    const byLine = errors.map((e) => [e.line, e.resource]);
    assert.deepEqual(byLine.filter(([l]) => l === 4), [[4, 'a']], res.text);
    assert.ok(byLine.some(([l, r]) => l === 8 && r === 'b'), res.text);
    assert.ok(byLine.some(([l, r]) => l === 9 && r === 'b'), res.text);
  });

  it('bodies that are not a module: wrong types, empty, not JSON, other media types', async () => {
    const before = await stored();
    assertProblem(await orch.api('POST', '/modules', { token: op, body: { content: 42 } }), 400, 'validation-failed');
    assertProblem(await orch.api('POST', '/modules', { token: op, body: { content: ['name: x'] } }), 400, 'validation-failed');
    assertProblem(await orch.api('POST', '/modules', { token: op, body: {} }), 400, 'validation-failed');
    assertProblem(await orch.api('POST', '/modules', { token: op, body: [GOOD] }), 400);
    const empty = await orch.api('POST', '/modules', { token: op, body: { content: '' } });
    assertProblem(empty, 400);
    assertProblem(await orch.api('POST', '/modules', { token: op, rawBody: '{"content": "name: x', headers: { 'content-type': 'application/json' } }), 400);
    assertProblem(await orch.api('POST', '/modules', { token: op, rawBody: '', headers: { 'content-type': 'application/yaml' } }), 400);
    assert.equal(await stored(), before);
  });

  it('a POST /modules without any body is a 400 problem, not a 500', async () => {
    const before = await stored();
    const res = await orch.api('POST', '/modules', { token: op });
    assertProblem(res, 400);
    assert.equal(await stored(), before);
  });

  it('path traversal in module URLs is refused, never served', async () => {
    const before = await stored();
    for (const p of ['/modules/..%2F..%2Fetc%2Fpasswd', '/modules/..%2Fgood', '/modules/%2E%2E', '/modules/good%00', '/modules/good%2F..%2F..%2Fetc', '/modules/.good']) {
      const res = await orch.api('GET', p, { token: op });
      assert.ok(res.status === 400 || res.status === 404, `${p}: ${res.status} ${res.text}`);
      assertProblem(res, res.status);
      assert.ok(!res.text.includes('root:'), p);
    }
    for (const p of ['/modules/..%2Fgood', '/modules/..%2F..%2Fetc']) {
      const res = await orch.api('DELETE', p, { token: op });
      assertProblem(res, 400, 'validation-failed');
    }
    assertProblem(await orch.api('GET', '/modules/good?revision=..%2F1', { token: op }), 400, 'validation-failed');
    assert.equal((await orch.api('GET', '/modules/good', { token: op })).status, 200, 'the real module is still there');
    assert.equal(await stored(), before);
  });

  it('apply and plan bodies: wrong types, traversal, huge or unknown fields are 400 naming the field; nothing queued', async () => {
    const before = await stored();
    const bodies: { what: string; body?: unknown; raw?: string; status?: number; field?: RegExp }[] = [
      { what: 'modules as a string', body: { modules: 'good' }, field: /modules/ },
      { what: 'modules with a number', body: { modules: [1] }, field: /modules/ },
      { what: 'modules that climb', body: { modules: ['../../etc'] }, field: /modules/ },
      { what: 'a module name with a slash', body: { modules: ['good/../../etc'] }, field: /modules/ },
      { what: 'too many modules', body: { modules: Array.from({ length: 65 }, (_, i) => `m${i}`) }, field: /modules/ },
      { what: 'no modules', body: { vars: {} }, field: /modules/ },
      { what: 'vars as a list', body: { modules: ['good'], vars: [1] }, field: /vars/ },
      { what: 'vars as a string', body: { modules: ['good'], vars: 'a=1' }, field: /vars/ },
      { what: 'a nested var', body: { modules: ['good'], vars: { a: { b: 1 } } }, field: /vars/ },
      { what: 'a null var', body: { modules: ['good'], vars: { a: null } }, field: /vars/ },
      { what: 'a var name that is not one', body: { modules: ['good'], vars: { '../x': '1' } }, field: /vars/ },
      { what: '257 vars', body: { modules: ['good'], vars: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`v${i}`, i])) }, field: /vars/ },
      { what: 'a var over 64 KiB', body: { modules: ['good'], vars: { big: 'x'.repeat(65537) } }, field: /vars/ },
      { what: 'an unknown field', body: { modules: ['good'], force: true } },
      { what: 'plan_operation_id not a uuid', body: { modules: ['good'], plan_operation_id: '../../etc' }, field: /plan_operation_id/ },
      { what: 'a body that is not JSON', raw: '{"modules": ["good"' },
      { what: 'a JSON list', body: [{ modules: ['good'] }] },
    ];
    for (const kind of ['apply', 'plan'] as const) {
      for (const b of bodies) {
        const res: ApiResult =
          b.raw !== undefined
            ? await orch.api('POST', `/agents/${NODE}/${kind}`, { token: op, rawBody: b.raw, headers: { 'content-type': 'application/json' } })
            : await orch.api('POST', `/agents/${NODE}/${kind}`, { token: op, body: b.body });
        assertProblem(res, b.status ?? 400);
        if (b.field) {
          const fields = ((res.json.errors ?? []) as ProblemError[]).map((e) => e.field ?? '').join(' ');
          assert.match(`${fields} ${res.json.detail}`, b.field, `${kind}, ${b.what}: ${res.text.slice(0, 400)}`);
        }
      }
      // Over the 1 MiB body limit.
      assertProblem(await orch.api('POST', `/agents/${NODE}/${kind}`, { token: op, body: { modules: ['good'], vars: { big: 'x'.repeat(1024 * 1024 + 10) } } }), 413);
    }
    // A var the modules do not declare (schema-valid, refused by the service).
    assertProblem(await orch.api('POST', `/agents/${NODE}/plan`, { token: op, body: { modules: ['good'], vars: { nope: 'x' } } }), 400, 'unknown-var');
    assert.equal(await stored(), before, 'no operation was queued');
  });

  it('a drift check on an agent that has no successful apply: 409 no-baseline, no record', async () => {
    const before = await stored();
    const res = await orch.api('POST', `/agents/${NODE}/drift`, { token: op });
    assertProblem(res, 409, 'no-baseline');
    assert.match(res.json.detail, /no successful apply/);
    const state = await orch.api('GET', `/agents/${NODE}/state`, { token: op });
    assert.equal(state.status, 200, state.text);
    const believed = state.json as BelievedState;
    assert.equal(believed.baseline_operation_id, null);
    assert.deepEqual(believed.resources, []);
    assert.equal(believed.latest_drift, null);
    const latest = await orch.api('GET', `/agents/${NODE}/drift/latest`, { token: op });
    assert.equal(latest.status, 404, latest.text);
    assert.equal(await stored(), before);
  });
});
