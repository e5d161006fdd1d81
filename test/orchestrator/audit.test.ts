import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeKey } from '../helpers/keys.js';
import { assertProblem, startTestOrchestrator, type ApiResult, type TestOrchestrator } from '../helpers/orchestrator.js';

const DAY_MS = 24 * 3600_000;

interface Event {
  id: number;
  time: string;
  actor_type: string;
  actor: string | null;
  action: string;
  target: string | null;
  outcome: string;
  source_ip: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

async function allEvents(o: TestOrchestrator, query = ''): Promise<Event[]> {
  const res = await o.api('GET', `/audit?limit=1000${query ? '&' + query : ''}`, { token: await o.adminToken() });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.next_cursor, null, 'fits one page');
  return res.json.items as Event[];
}

function byRequest(events: Event[], res: ApiResult): Event[] {
  return events.filter((e) => e.request_id === res.headers['x-request-id']);
}

describe('GET /api/v1/audit', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let viewer: { token: string; operatorId: string };
  const secrets: string[] = []; // every token and signature this describe used

  before(async () => {
    orch = await startTestOrchestrator();
    admin = await orch.adminToken();
    secrets.push(admin);
    viewer = await orch.loginAs('viewer', 'val');
    secrets.push(viewer.token);
  });
  after(() => orch.close());

  it('needs authentication; any role may read', async () => {
    assertProblem(await orch.api('GET', '/audit'), 401);
    assert.equal((await orch.api('GET', '/audit', { token: viewer.token })).status, 200);
  });

  it('records operator.create with actor, target, outcome, source IP and request id', async () => {
    const res = await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'carl', role: 'operator', public_keys: [makeKey().publicLine] } });
    assert.equal(res.status, 201);
    const [event, ...more] = byRequest(await allEvents(orch), res);
    assert.equal(more.length, 0, 'exactly one event per request');
    assert.ok(event);
    assert.equal(event.action, 'operator.create');
    assert.equal(event.actor_type, 'operator');
    assert.equal(event.actor, 'admin');
    assert.equal(event.target, 'carl');
    assert.equal(event.outcome, 'success');
    assert.equal(event.source_ip, '127.0.0.1');
    assert.match(event.request_id!, /^[0-9a-f-]{36}$/);
    assert.equal(event.details.status, 201);
    assert.equal(event.details.role, 'operator');
    assert.ok(Math.abs(Date.parse(event.time) - Date.now()) < 60_000);
    assert.match(event.hash, /^[0-9a-f]{64}$/);
  });

  it('records operator.remove, and refused attempts as denied or error', async () => {
    const del = await orch.api('DELETE', '/operators/carl', { token: admin });
    assert.equal(del.status, 204);
    const denied = await orch.api('DELETE', '/operators/admin', { token: viewer.token });
    assert.equal(denied.status, 403);
    const conflict = await orch.api('DELETE', '/operators/admin', { token: admin });
    assert.equal(conflict.status, 409);
    const events = await allEvents(orch);
    const [removed] = byRequest(events, del);
    assert.equal(removed?.action, 'operator.remove');
    assert.equal(removed?.target, 'carl');
    assert.equal(removed?.outcome, 'success');
    const [deniedEvent] = byRequest(events, denied);
    assert.equal(deniedEvent?.outcome, 'denied');
    assert.equal(deniedEvent?.actor, 'val');
    assert.equal(deniedEvent?.action, 'operator.remove');
    assert.equal(deniedEvent?.target, 'admin');
    assert.equal(deniedEvent?.details.error, 'role-required');
    const [conflictEvent] = byRequest(events, conflict);
    assert.equal(conflictEvent?.outcome, 'error');
    assert.equal(conflictEvent?.details.error, 'last-admin');
  });

  it('records auth.verify successes and failures, without the signature', async () => {
    const key = makeKey();
    assert.equal((await orch.api('POST', '/operators', { token: admin, body: { operator_id: 'dora', role: 'viewer', public_keys: [key.publicLine] } })).status, 201);
    const c1 = (await orch.api('POST', '/auth/challenge', { body: { operator_id: 'dora' } })).json;
    const goodSig = key.sign(c1.message);
    const good = await orch.api('POST', '/auth/verify', { body: { operator_id: 'dora', nonce: c1.nonce, signature: goodSig } });
    assert.equal(good.status, 200);
    secrets.push(good.json.token, goodSig);
    const c2 = (await orch.api('POST', '/auth/challenge', { body: { operator_id: 'dora' } })).json;
    const badSig = makeKey().sign(c2.message);
    const bad = await orch.api('POST', '/auth/verify', { body: { operator_id: 'dora', nonce: c2.nonce, signature: badSig } });
    assert.equal(bad.status, 401);
    secrets.push(badSig);
    // A verify refused by validation would record its body: the signature must still not show.
    const oddSig = key.sign('corral-auth-v1:whatever');
    const odd = await orch.api('POST', '/auth/verify', { body: { operator_id: 'dora', nonce: 'n', signature: oddSig, extra: true } });
    assert.equal(odd.status, 400);
    secrets.push(oddSig);

    const events = await allEvents(orch);
    const [ok] = byRequest(events, good);
    assert.equal(ok?.action, 'auth.verify');
    assert.equal(ok?.outcome, 'success');
    assert.equal(ok?.actor, 'dora');
    assert.equal(ok?.details.key_fingerprint, key.fingerprint);
    const [failed] = byRequest(events, bad);
    assert.equal(failed?.action, 'auth.verify');
    assert.equal(failed?.outcome, 'denied');
    assert.equal(failed?.actor, 'dora');
    assert.equal(failed?.details.error, 'signature-invalid');
    const [invalid] = byRequest(events, odd);
    assert.equal(invalid?.outcome, 'error');
    assert.ok(events.some((e) => e.action === 'auth.challenge' && e.actor === 'dora'));
  });

  it('never stores a token or a signature, in the API answer or in the database files', async () => {
    assert.ok(secrets.length >= 5);
    const text = (await orch.api('GET', '/audit?limit=1000', { token: admin })).text;
    const files = ['corral.db', 'corral.db-wal', 'corral.db-shm'].map((f) => path.join(orch.dataDir, f)).filter(existsSync);
    assert.ok(files.length >= 1);
    const raw = files.map((f) => readFileSync(f).toString('latin1')).join('\n');
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), 'not in GET /audit');
      assert.ok(!raw.includes(secret), 'not in the SQLite files');
    }
    assert.ok(text.includes('[redacted]'), 'the signature in the refused body was redacted');
  });

  it('filters by actor, exact action, action prefix, target and outcome', async () => {
    const everything = await allEvents(orch);
    const byVal = await allEvents(orch, 'actor=val');
    assert.ok(byVal.length > 0);
    assert.deepEqual(byVal, everything.filter((e) => e.actor === 'val'));

    const creates = await allEvents(orch, 'action=operator.create');
    assert.ok(creates.length >= 3);
    assert.deepEqual(creates, everything.filter((e) => e.action === 'operator.create'));

    const operatorActions = await allEvents(orch, `action=${encodeURIComponent('operator.*')}`);
    assert.deepEqual(operatorActions, everything.filter((e) => e.action.startsWith('operator.')));
    assert.ok(new Set(operatorActions.map((e) => e.action)).size >= 2, 'create and remove');
    assert.deepEqual(await allEvents(orch, 'action=operator'), [], 'no prefix match without the star');

    assert.deepEqual(await allEvents(orch, 'target=carl'), everything.filter((e) => e.target === 'carl'));
    for (const outcome of ['success', 'denied', 'error']) {
      const list = await allEvents(orch, `outcome=${outcome}`);
      assert.ok(list.length > 0, outcome);
      assert.deepEqual(list, everything.filter((e) => e.outcome === outcome));
    }
    const combined = await allEvents(orch, 'actor=admin&action=operator.*&outcome=success');
    assert.deepEqual(combined, everything.filter((e) => e.actor === 'admin' && e.action.startsWith('operator.') && e.outcome === 'success'));
  });

  it('filters by time: since inclusive, until exclusive', async () => {
    const everything = await allEvents(orch);
    const oldestFirst = [...everything].reverse();
    const since = oldestFirst[Math.floor(oldestFirst.length / 3)]!.time;
    const until = oldestFirst[Math.floor((2 * oldestFirst.length) / 3)]!.time;
    const window = await allEvents(orch, `since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`);
    assert.deepEqual(window, everything.filter((e) => e.time >= since && e.time < until));
    assert.ok(window.length > 0);
    assert.deepEqual(await allEvents(orch, `since=${encodeURIComponent(since)}`), everything.filter((e) => e.time >= since));
    assert.deepEqual(await allEvents(orch, `until=${encodeURIComponent(until)}`), everything.filter((e) => e.time < until));
    assertProblem(await orch.api('GET', `/audit?since=${encodeURIComponent(until)}&until=${encodeURIComponent(since)}`, { token: admin }), 400);
    assertProblem(await orch.api('GET', '/audit?since=yesterday', { token: admin }), 400, 'validation-failed');
  });

  it('pages with limit and cursor, newest first, without overlap or gaps, even while events arrive', async () => {
    const everything = await allEvents(orch);
    assert.ok(everything.length > 10);
    const ids: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResult = await orch.api('GET', `/audit?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: viewer.token });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.json.items.length <= 3);
      ids.push(...res.json.items.map((e: Event) => e.id));
      cursor = res.json.next_cursor;
      pages++;
      // New events (these GETs record none; a mutation does) must not shift the pages.
      if (pages === 2) await orch.api('PUT', '/audit/retention', { token: admin, body: { days: 90 } });
    } while (cursor && pages < 1000);
    assert.deepEqual(ids, everything.map((e) => e.id));
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a));
    assertProblem(await orch.api('GET', '/audit?cursor=garbage', { token: admin }), 400, 'invalid-cursor');
    assertProblem(await orch.api('GET', '/audit?limit=0', { token: admin }), 400);
  });
});

describe('GET /api/v1/audit/verify', () => {
  let orch: TestOrchestrator;
  before(async () => {
    orch = await startTestOrchestrator();
    for (let i = 0; i < 3; i++) await orch.loginAs('viewer');
  });
  after(() => orch.close());

  it('needs authentication', async () => {
    assertProblem(await orch.api('GET', '/audit/verify'), 401);
  });

  it('reports an intact chain', async () => {
    const events = await allEvents(orch);
    const res = await orch.api('GET', '/audit/verify', { token: await orch.adminToken() });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { ok: true, checked: events.length, first_bad_id: null, reason: null });
    const oldestFirst = [...events].reverse();
    assert.equal(oldestFirst[0]!.prev_hash, '0'.repeat(64));
    for (let i = 1; i < oldestFirst.length; i++) assert.equal(oldestFirst[i]!.prev_hash, oldestFirst[i - 1]!.hash);
  });

  it('finds a row changed directly in SQLite', async () => {
    const events = [...(await allEvents(orch))].reverse();
    const victim = events[Math.floor(events.length / 2)]!;
    const db = new Database(path.join(orch.dataDir, 'corral.db'));
    try {
      db.prepare('UPDATE audit_events SET action = ? WHERE id = ?').run('nothing.to.see', victim.id);
    } finally {
      db.close();
    }
    const res = await orch.api('GET', '/audit/verify', { token: await orch.adminToken() });
    assert.equal(res.json.ok, false);
    assert.equal(res.json.first_bad_id, victim.id);
    assert.match(res.json.reason, /hash/);
    assert.equal(res.json.checked, events.indexOf(victim));
  });

  it('finds a row deleted directly in SQLite', async () => {
    const db = new Database(path.join(orch.dataDir, 'corral.db'));
    try {
      const rows = db.prepare('SELECT id FROM audit_events ORDER BY id').all() as { id: number }[];
      // Deleting the oldest row breaks the link from the chain's anchor to the next one,
      // which is found before the row changed in the test above.
      db.prepare('DELETE FROM audit_events WHERE id = ?').run(rows[0]!.id);
      const res = await orch.api('GET', '/audit/verify', { token: await orch.adminToken() });
      assert.equal(res.json.ok, false);
      assert.equal(res.json.first_bad_id, rows[1]!.id);
      assert.match(res.json.reason, /prev_hash/);
    } finally {
      db.close();
    }
  });
});

describe('DELETE /api/v1/audit', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let operator: string;
  before(async () => {
    orch = await startTestOrchestrator();
    admin = await orch.adminToken();
    operator = (await orch.loginAs('operator')).token;
    for (let i = 0; i < 3; i++) await orch.loginAs('viewer');
  });
  after(() => orch.close());

  it('needs authentication and the admin role; a refused prune is audited as denied', async () => {
    const before = new Date(Date.now() + 1000).toISOString();
    assertProblem(await orch.api('DELETE', `/audit?before=${before}`), 401);
    const denied = await orch.api('DELETE', `/audit?before=${before}`, { token: operator });
    assertProblem(denied, 403, 'role-required');
    const [event] = byRequest(await allEvents(orch), denied);
    assert.equal(event?.outcome, 'denied');
    assert.equal(event?.action, 'audit.prune');
  });

  it('rejects bad input', async () => {
    assertProblem(await orch.api('DELETE', '/audit', { token: admin }), 400, 'validation-failed');
    assertProblem(await orch.api('DELETE', '/audit?before=last-week', { token: admin }), 400, 'validation-failed');
  });

  it('prunes events older than before, records the prune, and the chain still verifies', async () => {
    // Separate the old events from the ones that must stay by a clear gap in time.
    await new Promise((r) => setTimeout(r, 20));
    const cut = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await orch.loginAs('viewer', 'after-cut');
    const beforePrune = await allEvents(orch);
    const old = beforePrune.filter((e) => e.time < cut);
    const kept = beforePrune.filter((e) => e.time >= cut);
    assert.ok(old.length > 5 && kept.length > 0);

    const res = await orch.api('DELETE', `/audit?before=${encodeURIComponent(cut)}`, { token: admin });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { deleted: old.length, before: cut });

    const afterPrune = await allEvents(orch);
    const pruneEvents = byRequest(afterPrune, res);
    assert.equal(pruneEvents.length, 1, 'recorded once');
    const prune = pruneEvents[0]!;
    assert.equal(prune.action, 'audit.prune');
    assert.equal(prune.actor, 'admin');
    assert.equal(prune.outcome, 'success');
    assert.equal(prune.details.deleted, old.length);
    assert.equal(prune.details.before, cut);
    assert.equal(prune.details.chain_anchor, old[0]!.hash, 'the chain restarts from the last pruned hash, on the record');
    assert.deepEqual(afterPrune.filter((e) => e.id !== prune.id).map((e) => e.id), kept.map((e) => e.id));

    const verify = await orch.api('GET', '/audit/verify', { token: admin });
    assert.deepEqual(verify.json, { ok: true, checked: afterPrune.length, first_bad_id: null, reason: null });
    // New events keep chaining after the prune.
    await orch.loginAs('viewer');
    assert.equal((await orch.api('GET', '/audit/verify', { token: admin })).json.ok, true);
  });

  it('prunes nothing when nothing is older, and says so', async () => {
    const res = await orch.api('DELETE', '/audit?before=2000-01-01T00:00:00Z', { token: admin });
    assert.equal(res.status, 200);
    assert.equal(res.json.deleted, 0);
    assert.equal((await orch.api('GET', '/audit/verify', { token: admin })).json.ok, true);
  });
});

describe('GET and PUT /api/v1/audit/retention', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let operator: string;
  let viewer: string;
  before(async () => {
    orch = await startTestOrchestrator();
    admin = await orch.adminToken();
    operator = (await orch.loginAs('operator')).token;
    viewer = (await orch.loginAs('viewer')).token;
  });
  after(() => orch.close());

  it('needs authentication; any role reads, only admin writes', async () => {
    assertProblem(await orch.api('GET', '/audit/retention'), 401);
    assertProblem(await orch.api('PUT', '/audit/retention', { body: { days: 1 } }), 401);
    const read = await orch.api('GET', '/audit/retention', { token: viewer });
    assert.deepEqual([read.status, read.json], [200, { days: 90 }]);
    assertProblem(await orch.api('PUT', '/audit/retention', { token: operator, body: { days: 1 } }), 403, 'role-required');
    assertProblem(await orch.api('PUT', '/audit/retention', { token: viewer, body: { days: 1 } }), 403, 'role-required');
    assert.equal((await orch.api('GET', '/audit/retention', { token: viewer })).json.days, 90);
  });

  it('rejects bad input', async () => {
    assertProblem(await orch.api('PUT', '/audit/retention', { token: admin, body: { days: -1 } }), 400, 'validation-failed');
    assertProblem(await orch.api('PUT', '/audit/retention', { token: admin, body: {} }), 400, 'validation-failed');
    assert.equal((await orch.api('GET', '/audit/retention', { token: admin })).json.days, 90);
  });

  it('stores the setting (0 allowed) and audits the change', async () => {
    const res = await orch.api('PUT', '/audit/retention', { token: admin, body: { days: 0 } });
    assert.deepEqual([res.status, res.json], [200, { days: 0 }]);
    assert.equal((await orch.api('GET', '/audit/retention', { token: operator })).json.days, 0);
    const [event] = byRequest(await allEvents(orch), res);
    assert.equal(event?.action, 'audit.retention_update');
    assert.deepEqual(event?.details, { status: 200, from: 90, to: 0 });
    assert.equal(orch.handle.services.audit.retentionDays(), 0);
  });

  it('applyRetention keeps everything with 0 days and prunes old events otherwise', async () => {
    const { audit } = orch.handle.services;
    const count = (await allEvents(orch)).length;
    assert.equal(audit.applyRetention(Date.now() + 1000 * DAY_MS), 0, '0 keeps everything');
    assert.equal((await allEvents(orch)).length, count);

    assert.equal((await orch.api('PUT', '/audit/retention', { token: admin, body: { days: 7 } })).status, 200);
    const events = await allEvents(orch);
    assert.equal(audit.applyRetention(Date.now() + 6 * DAY_MS), 0, 'nothing is 7 days old yet');
    assert.equal(audit.applyRetention(Date.now() + 8 * DAY_MS), events.length, 'everything is 7 days old a week on');

    const left = await allEvents(orch);
    assert.equal(left.length, 1);
    assert.equal(left[0]!.action, 'audit.prune');
    assert.equal(left[0]!.actor_type, 'system');
    assert.equal(left[0]!.actor, 'retention');
    assert.equal(left[0]!.details.deleted, events.length);
    assert.equal((await orch.api('GET', '/audit/verify', { token: admin })).json.ok, true);
  });
});
