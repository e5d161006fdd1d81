// Per-operator notifications over a real orchestrator: who gets which event, read markers
// that touch only the caller's own, filters and paging, the live stream, role checks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notification, NotificationList } from '../../common/schemas/events.js';
import { openEventStream } from '../helpers/event-stream.js';
import { eventually } from '../helpers/fleet.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

describe('notifications', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let admin2: string;
  let viewer: string;
  let operator: string;

  const inbox = async (token: string, query = ''): Promise<NotificationList> => {
    const res = await orch.api('GET', `/notifications${query}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.json as NotificationList;
  };
  const secret = async (name: string) => {
    const res = await orch.api('POST', '/secrets', { token: operator, body: { name, value: `value-of-${name}` } });
    assert.equal(res.status, 201, res.text);
  };

  before(async () => {
    orch = await startTestOrchestrator({ offlineNotifyDelayS: 0 });
    admin = await orch.adminToken();
    admin2 = (await orch.loginAs('admin', 'second-admin')).token;
    viewer = (await orch.loginAs('viewer', 'just-looking')).token;
    operator = (await orch.loginAs('operator', 'ops-person')).token;
  });
  after(async () => orch.close());

  it('gives each event to the operators whose role may see it', async () => {
    await secret('db_password');
    const mine = await inbox(admin);
    const kinds = mine.items.map((n) => `${n.kind} ${n.title}`);
    assert.ok(kinds.some((k) => k.startsWith('operator.added Operator just-looking added by admin')), kinds.join('\n'));
    assert.ok(kinds.some((k) => k.startsWith('secret.changed Secret db_password created by ops-person')), kinds.join('\n'));
    // operator.* goes to admins only; secret.changed to operators and admins.
    const viewerKinds = (await inbox(viewer)).items.map((n) => n.kind);
    assert.ok(!viewerKinds.includes('operator.added') && !viewerKinds.includes('secret.changed'), viewerKinds.join(', '));
    const operatorKinds = (await inbox(operator)).items.map((n) => n.kind);
    assert.ok(operatorKinds.includes('secret.changed') && !operatorKinds.includes('operator.added'), operatorKinds.join(', '));
    // Nothing about the value, ever.
    assert.doesNotMatch(JSON.stringify(mine), /value-of-db_password/);
  });

  it("keeps a read marker per operator: one operator's read-all leaves another's unread", async () => {
    await secret('api_token');
    const before1 = await inbox(admin);
    const before2 = await inbox(admin2);
    assert.ok(before1.unread_count > 0 && before2.unread_count > 0);

    const all = await orch.api('POST', '/notifications/read-all', { token: admin2 });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.json.marked, before2.unread_count);
    assert.equal(all.json.unread_count, 0);
    assert.equal((await inbox(admin2)).unread_count, 0);
    assert.equal((await inbox(admin)).unread_count, before1.unread_count, "admin's unread count is untouched");

    const one = before1.items.find((n) => !n.read)!;
    const marked = await orch.api('POST', `/notifications/${one.id}/read`, { token: admin });
    assert.equal(marked.status, 200, marked.text);
    assert.deepEqual(marked.json, { marked: 1, unread_count: before1.unread_count - 1 });
    const again = await orch.api('POST', `/notifications/${one.id}/read`, { token: admin });
    assert.equal(again.json.marked, 0, 'marking twice changes nothing');
    const after1 = await inbox(admin);
    const read = after1.items.find((n) => n.id === one.id)!;
    assert.equal(read.read, true);
    assert.ok(read.read_at);
    assert.ok(after1.items.some((n) => n.id !== one.id && !n.read), 'the others stay unread');
  });

  it("answers 404 for a notification the operator does not have, even one that exists for someone else", async () => {
    const adminOnly = (await inbox(admin, '?kind=operator.added')).items[0]!;
    assertProblem(await orch.api('POST', `/notifications/${adminOnly.id}/read`, { token: viewer }), 404, 'notification-not-found');
    assert.equal((await inbox(admin)).items.find((n) => n.id === adminOnly.id)!.read, false, "the viewer's attempt did not mark the admin's");
    assertProblem(await orch.api('POST', '/notifications/00000000-0000-4000-8000-000000000000/read', { token: admin }), 404, 'notification-not-found');
    assertProblem(await orch.api('POST', '/notifications/not-a-uuid/read', { token: admin }), 400);
  });

  it('filters by unread, kind, severity and since, and pages with a cursor', async () => {
    const start = new Date().toISOString();
    for (let i = 0; i < 5; i++) await secret(`paged_${i}`);
    const since = await inbox(admin, `?since=${encodeURIComponent(start)}`);
    assert.equal(since.items.length, 5);
    assert.deepEqual(since.items.map((n) => n.title.split(' ')[1]), ['paged_4', 'paged_3', 'paged_2', 'paged_1', 'paged_0'], 'newest first');

    const kinds = await inbox(admin, '?kind=secret.changed');
    assert.ok(kinds.items.length >= 7 && kinds.items.every((n) => n.kind === 'secret.changed'));
    const warnings = await inbox(admin, '?severity=warning');
    assert.ok(warnings.items.every((n) => n.severity === 'warning' || n.severity === 'critical'));
    const unread = await inbox(admin, '?unread=true');
    assert.ok(unread.items.every((n) => !n.read));
    const read = await inbox(admin, '?unread=false');
    assert.ok(read.items.length >= 1 && read.items.every((n) => n.read));

    const seen: Notification[] = [];
    let cursor: string | null = null;
    do {
      const page: NotificationList = await inbox(admin, `?limit=2&kind=secret.changed${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.items.length <= 2);
      seen.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    assert.equal(seen.length, kinds.items.length);
    assert.equal(new Set(seen.map((n) => n.id)).size, seen.length, 'no notification twice across pages');

    assertProblem(await orch.api('GET', '/notifications?severity=loud', { token: admin }), 400);
    assertProblem(await orch.api('GET', '/notifications?kind=agent.exploded', { token: admin }), 400);
    assertProblem(await orch.api('GET', '/notifications?since=yesterday', { token: admin }), 400);
    assertProblem(await orch.api('GET', '/notifications?cursor=garbage', { token: admin }), 400, 'invalid-cursor');
    assertProblem(await orch.api('GET', '/notifications?colour=red', { token: admin }), 400);
  });

  it('pushes new notifications and read-marker changes on the live stream, to their recipients only', async () => {
    assertProblem(await orch.api('GET', '/events'), 401);
    const adminStream = await openEventStream(orch.url, admin);
    const viewerStream = await openEventStream(orch.url, viewer);
    try {
      assert.equal(adminStream.status, 200);
      const hello = await adminStream.next((m) => m.type === 'hello');
      assert.equal((hello.data as { unread_count: number }).unread_count, (await inbox(admin)).unread_count);
      await viewerStream.next((m) => m.type === 'hello');

      await orch.loginAs('viewer', 'live-viewer');
      const pushed = await adminStream.next((m) => m.type === 'notification' && (m.data as { notification: Notification }).notification.title.includes('live-viewer'));
      const data = pushed.data as { notification: Notification; unread_count: number };
      assert.equal(data.notification.kind, 'operator.added');
      assert.equal(data.unread_count, (await inbox(admin)).unread_count);

      await orch.api('POST', '/notifications/read-all', { token: admin });
      const unread = await adminStream.next((m) => m.type === 'unread');
      assert.deepEqual(unread.data, { unread_count: 0 });
      // The viewer is not an audience of operator.added, and sees nobody else's read markers.
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!viewerStream.messages.some((m) => m.type === 'notification' || m.type === 'unread'), JSON.stringify(viewerStream.messages));
    } finally {
      adminStream.close();
      viewerStream.close();
    }
  });

  it('knows when a stream\'s session no longer holds (what its periodic check asks)', async () => {
    const leaving = await orch.loginAs('viewer', 'signs-out');
    const session = orch.handle.services.auth.authenticate(leaving.token)!;
    assert.equal(orch.handle.services.auth.isCurrent(session), true);
    assert.equal((await orch.api('DELETE', '/auth/session', { token: leaving.token })).status, 204);
    assert.equal(orch.handle.services.auth.isCurrent(session), false);
  });

  it('ends the stream of an operator who is removed', async () => {
    const gone = await orch.loginAs('viewer', 'soon-gone');
    const stream = await openEventStream(orch.url, gone.token);
    await stream.next((m) => m.type === 'hello');
    assert.equal(orch.handle.services.live.countFor('soon-gone'), 1);
    assert.equal((await orch.api('DELETE', '/operators/soon-gone', { token: admin })).status, 204);
    await eventually('stream closed', () => orch.handle.services.live.countFor('soon-gone') === 0);
    stream.close();
  });
});
