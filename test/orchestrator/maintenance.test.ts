// Maintenance windows over a real orchestrator with real agents: CRUD and its rules,
// notifications of covered agents held back from channels and summarised in one digest
// at the end, only_in_maintenance assignments, deleting an active window, and the end of
// a window that passed while the orchestrator was stopped announced exactly once.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BatchSummary } from '../../common/schemas/assignments.js';
import type { FleetEvent, Notification, NotificationList } from '../../common/schemas/events.js';
import type { MaintenanceWindow } from '../../common/schemas/maintenance.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { eventually, startAcceptedAgent, uploadModule } from '../helpers/fleet.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { assertProblem, removeDir, startTestOrchestrator, tempDir, type TestOrchestrator } from '../helpers/orchestrator.js';

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const HOUR = 3600_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the webhook channel posts (see channels/providers/webhook.ts). */
interface WireMessage {
  kind: 'event' | 'digest' | 'test';
  title: string;
  text: string;
  events: FleetEvent[];
}

const wire = (receiver: HttpReceiver): WireMessage[] => receiver.requests.map((r) => r.json as WireMessage);
/** Event deliveries (one event or a batch) carrying an event the predicate accepts. */
const deliveredEvents = (receiver: HttpReceiver, pred: (e: FleetEvent) => boolean): FleetEvent[] =>
  wire(receiver).filter((m) => m.kind === 'event').flatMap((m) => m.events.filter(pred));
/** Digest deliveries of one window: the first event is its maintenance.ended announcement. */
const digestsOf = (receiver: HttpReceiver, windowId: string): WireMessage[] =>
  wire(receiver).filter((m) => m.kind === 'digest' && m.events[0]?.kind === 'maintenance.ended' && m.events[0].window_id === windowId);

async function notifications(orch: TestOrchestrator, token: string, query: string): Promise<Notification[]> {
  const res = await orch.api('GET', `/notifications?limit=500&${query}`, { token });
  assert.equal(res.status, 200, res.text);
  return (res.json as NotificationList).items;
}

async function createWindow(orch: TestOrchestrator, token: string, body: Record<string, unknown>): Promise<MaintenanceWindow> {
  const res = await orch.api('POST', '/maintenance-windows', { token, body });
  assert.equal(res.status, 201, res.text);
  return res.json as MaintenanceWindow;
}

describe('maintenance windows: CRUD and rules', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let operator: string;
  let viewer: string;

  before(async () => {
    orch = await startTestOrchestrator();
    admin = await orch.adminToken();
    operator = (await orch.loginAs('operator', 'mw-op')).token;
    viewer = (await orch.loginAs('viewer', 'mw-viewer')).token;
  });
  after(async () => orch?.close());

  it('creates windows with a status derived from the clock, lists, filters and reads them', async () => {
    const t0 = new Date().toISOString();
    const endsAt = inMs(HOUR);
    const res = await orch.api('POST', '/maintenance-windows', { token: admin, body: { name: ' patch night ', selector: 'role=web', ends_at: endsAt, reason: 'kernel update' } });
    assert.equal(res.status, 201, res.text);
    const active = res.json as MaintenanceWindow;
    assert.equal(res.headers.location, `/api/v1/maintenance-windows/${active.id}`);
    assert.equal(active.name, 'patch night', 'the name is trimmed');
    assert.equal(active.selector, 'role=web');
    assert.equal(active.status, 'active', 'starts_at defaults to now');
    assert.ok(active.starts_at >= t0 && active.starts_at <= new Date().toISOString(), active.starts_at);
    assert.equal(active.ends_at, endsAt);
    assert.equal(active.reason, 'kernel update');
    assert.equal(active.matching_agents, 0);
    assert.equal(active.created_by, 'admin');
    assert.equal(active.updated_by, 'admin');

    const scheduled = await createWindow(orch, admin, { name: 'later', selector: 'env in (prod,stage)', starts_at: inMs(HOUR), ends_at: inMs(2 * HOUR) });
    assert.equal(scheduled.status, 'scheduled');
    assert.equal(scheduled.reason, '', 'reason defaults to empty');

    const all = await orch.api('GET', '/maintenance-windows', { token: viewer });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.json.items.map((w: MaintenanceWindow) => w.id), [scheduled.id, active.id], 'newest start first');
    assert.equal(all.json.next_cursor, null);
    const onlyActive = await orch.api('GET', '/maintenance-windows?status=active', { token: viewer });
    assert.deepEqual(onlyActive.json.items.map((w: MaintenanceWindow) => [w.id, w.status]), [[active.id, 'active']]);
    const onlyScheduled = await orch.api('GET', '/maintenance-windows?status=scheduled', { token: viewer });
    assert.deepEqual(onlyScheduled.json.items.map((w: MaintenanceWindow) => [w.id, w.status]), [[scheduled.id, 'scheduled']]);
    assert.deepEqual((await orch.api('GET', '/maintenance-windows?status=ended', { token: viewer })).json.items, []);
    const page1 = await orch.api('GET', '/maintenance-windows?limit=1', { token: viewer });
    assert.deepEqual(page1.json.items.map((w: MaintenanceWindow) => w.id), [scheduled.id]);
    assert.equal(typeof page1.json.next_cursor, 'string');
    const page2 = await orch.api('GET', `/maintenance-windows?limit=1&cursor=${encodeURIComponent(page1.json.next_cursor)}`, { token: viewer });
    assert.deepEqual(page2.json.items.map((w: MaintenanceWindow) => w.id), [active.id]);
    assert.equal(page2.json.next_cursor, null);
    assertProblem(await orch.api('GET', '/maintenance-windows?cursor=garbage', { token: viewer }), 400, 'invalid-cursor');
    assertProblem(await orch.api('GET', '/maintenance-windows?status=paused', { token: viewer }), 400);

    const got = await orch.api('GET', `/maintenance-windows/${active.id}`, { token: viewer });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json, active);
    assertProblem(await orch.api('GET', '/maintenance-windows/00000000-0000-4000-8000-000000000000', { token: viewer }), 404, 'window-not-found');
    assertProblem(await orch.api('PUT', '/maintenance-windows/00000000-0000-4000-8000-000000000000', { token: admin, body: { reason: 'x' } }), 404, 'window-not-found');
    assertProblem(await orch.api('DELETE', '/maintenance-windows/00000000-0000-4000-8000-000000000000', { token: admin }), 404, 'window-not-found');
    assertProblem(await orch.api('GET', '/maintenance-windows/not-a-uuid', { token: viewer }), 400);

    // Both were announced as started only when their start came: the scheduled one not yet.
    const started = await notifications(orch, admin, 'kind=maintenance.started');
    assert.deepEqual(started.map((n) => n.window_id), [active.id]);
    assert.equal(started[0]!.title, 'Maintenance started: patch night');
    assert.match(started[0]!.body, /Reason: kernel update/);
  });

  it('refuses bad windows with 400s naming the field', async () => {
    const post = (body: Record<string, unknown>) => orch.api('POST', '/maintenance-windows', { token: admin, body });
    const fields = (res: { json: { errors?: { field: string }[] } }) => (res.json.errors ?? []).map((e) => e.field);

    const backwards = await post({ name: 'x', selector: 'role=web', starts_at: inMs(2 * HOUR), ends_at: inMs(HOUR) });
    assertProblem(backwards, 400);
    assert.deepEqual(fields(backwards), ['body.ends_at']);
    assert.match(backwards.json.errors[0].message, /after starts_at/);

    // With starts_at defaulting to now, a past end is before the start.
    const past = await post({ name: 'x', selector: 'role=web', ends_at: inMs(-60_000) });
    assertProblem(past, 400);
    assert.deepEqual(fields(past), ['body.ends_at']);
    const whollyPast = await post({ name: 'x', selector: 'role=web', starts_at: inMs(-2 * HOUR), ends_at: inMs(-HOUR) });
    assertProblem(whollyPast, 400);
    assert.deepEqual(fields(whollyPast), ['body.ends_at']);
    assert.match(whollyPast.json.errors[0].message, /future/);

    const tooLong = await post({ name: 'x', selector: 'role=web', ends_at: inMs(400 * 24 * HOUR) });
    assertProblem(tooLong, 400);
    assert.deepEqual(fields(tooLong), ['body.ends_at']);

    const badSelector = await post({ name: 'x', selector: 'role in (web', ends_at: inMs(HOUR) });
    assertProblem(badSelector, 400, 'invalid-selector');
    assert.deepEqual(fields(badSelector), ['body.selector']);
    assert.match(badSelector.json.errors[0].message, /at position \d+/);

    const unknown = await post({ name: 'x', selector: 'role=web', ends_at: inMs(HOUR), colour: 'red' });
    assertProblem(unknown, 400, 'validation-failed');
    assert.deepEqual(unknown.json.errors, [{ field: 'body.colour', message: 'unknown field' }]);

    const noName = await post({ selector: 'role=web', ends_at: inMs(HOUR) });
    assertProblem(noName, 400, 'validation-failed');
    assert.deepEqual(fields(noName), ['body.name']);

    const blankName = await post({ name: '   ', selector: 'role=web', ends_at: inMs(HOUR) });
    assertProblem(blankName, 400, 'validation-failed');
    assert.deepEqual(fields(blankName), ['body.name']);

    const notADate = await post({ name: 'x', selector: 'role=web', ends_at: 'tomorrow' });
    assertProblem(notADate, 400, 'validation-failed');
    assert.deepEqual(fields(notADate), ['body.ends_at']);

    // Nothing of that was stored.
    const names = (await orch.api('GET', '/maintenance-windows', { token: admin })).json.items.map((w: MaintenanceWindow) => w.name);
    assert.ok(!names.includes('x'), names.join(', '));
  });

  it('keeps the start of an active window, ends it on PUT ends_at=now, then allows only name and reason', async () => {
    const w = await createWindow(orch, admin, { name: 'short', selector: 'role=db', ends_at: inMs(HOUR) });
    assert.equal(w.status, 'active');
    assertProblem(await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { starts_at: inMs(10 * 60_000) } }), 409, 'window-started');
    const same = await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { starts_at: w.starts_at, reason: 'same start is fine' } });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.json.reason, 'same start is fine');
    const longer = await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { ends_at: inMs(2 * HOUR) } });
    assert.equal(longer.status, 200, longer.text);
    assert.equal(longer.json.status, 'active');

    const ended = await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { ends_at: new Date().toISOString() } });
    assert.equal(ended.status, 200, ended.text);
    assert.equal(ended.json.status, 'ended');
    assert.equal((await orch.api('GET', `/maintenance-windows/${w.id}`, { token: viewer })).json.status, 'ended');
    const endedNotes = (await notifications(orch, admin, 'kind=maintenance.ended')).filter((n) => n.window_id === w.id);
    assert.equal(endedNotes.length, 1, 'its end is announced before the answer');
    assert.match(endedNotes[0]!.body, /Nothing was held back\./);

    assertProblem(await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { selector: 'role=web' } }), 409, 'window-ended');
    assertProblem(await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { ends_at: inMs(HOUR) } }), 409, 'window-ended');
    assertProblem(await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { starts_at: w.starts_at } }), 409, 'window-ended');
    const renamed = await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { reason: 'done early', name: 'short one' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.reason, 'done early');
    assert.equal(renamed.json.name, 'short one');
    assert.equal(renamed.json.status, 'ended');
    assert.equal(renamed.json.ends_at, ended.json.ends_at, 'the end stays');
    const stillOne = (await notifications(orch, admin, 'kind=maintenance.ended')).filter((n) => n.window_id === w.id);
    assert.equal(stillOne.length, 1, 'changing an ended window announces nothing again');
  });

  it('lets a scheduled window move, refuses a past end for it, and starts it when its start passes', async () => {
    const w = await createWindow(orch, admin, { name: 'moving', selector: 'role=cache', starts_at: inMs(HOUR), ends_at: inMs(2 * HOUR) });
    assertProblem(await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { ends_at: inMs(-1000) } }), 400);
    const backwards = await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { starts_at: inMs(3 * HOUR) } });
    assertProblem(backwards, 400);
    assert.equal(backwards.json.errors[0].field, 'body.ends_at');
    const soon = inMs(400);
    const moved = await orch.api('PUT', `/maintenance-windows/${w.id}`, { token: admin, body: { starts_at: soon } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.json.status, 'scheduled');
    assert.equal(moved.json.starts_at, soon);
    // The boundary timer announces the start by itself.
    await eventually('moving started', async () => (await notifications(orch, viewer, 'kind=maintenance.started')).some((n) => n.window_id === w.id));
    assert.equal((await orch.api('GET', `/maintenance-windows/${w.id}`, { token: viewer })).json.status, 'active');
    assert.equal((await orch.api('DELETE', `/maintenance-windows/${w.id}`, { token: admin })).status, 204);
  });

  it('lets only admins write; viewers and operators may read', async () => {
    const w = await createWindow(orch, admin, { name: 'roles', selector: 'role=web', starts_at: inMs(HOUR), ends_at: inMs(2 * HOUR) });
    for (const token of [viewer, operator]) {
      assertProblem(await orch.api('POST', '/maintenance-windows', { token, body: { name: 'nope', selector: 'role=web', ends_at: inMs(HOUR) } }), 403, 'role-required');
      assertProblem(await orch.api('PUT', `/maintenance-windows/${w.id}`, { token, body: { reason: 'nope' } }), 403, 'role-required');
      assertProblem(await orch.api('DELETE', `/maintenance-windows/${w.id}`, { token }), 403, 'role-required');
      assert.equal((await orch.api('GET', '/maintenance-windows', { token })).status, 200);
      const got = await orch.api('GET', `/maintenance-windows/${w.id}`, { token });
      assert.equal(got.status, 200);
      assert.equal(got.json.reason, '', 'the refused PUT changed nothing');
    }
    assertProblem(await orch.api('GET', '/maintenance-windows'), 401);
    // Deleting a scheduled window announces nothing: it never started.
    assert.equal((await orch.api('DELETE', `/maintenance-windows/${w.id}`, { token: admin })).status, 204);
    assertProblem(await orch.api('GET', `/maintenance-windows/${w.id}`, { token: admin }), 404, 'window-not-found');
    const about = (await notifications(orch, admin, '')).filter((n) => n.window_id === w.id);
    assert.deepEqual(about, []);
  });
});

describe('maintenance windows with real agents', () => {
  const WEB = 'mw-web';
  const DB = 'mw-db';
  let orch: TestOrchestrator;
  let admin: string;
  let receiver: HttpReceiver;
  let channelId: string;
  let moduleDir: string;
  const stateDirs = new Map<string, string>();
  const agents = new Map<string, AgentProcess>();

  const start = async (node: string) => agents.set(node, await startAcceptedAgent(orch, admin, node, { stateDir: stateDirs.get(node)! }));
  const kill = async (node: string) => {
    await agents.get(node)!.kill('SIGKILL');
    await eventually(`${node} offline`, async () => !(await orch.api('GET', `/agents/${node}`, { token: admin })).json.online);
  };
  const tag = async (node: string, key: string, value: string) =>
    assert.equal((await orch.api('PUT', `/agents/${node}/tags/${key}`, { token: admin, body: { value } })).status, 200);
  const notes = (query: string) => notifications(orch, admin, query);
  const endNow = async (id: string) => {
    const res = await orch.api('PUT', `/maintenance-windows/${id}`, { token: admin, body: { ends_at: new Date().toISOString() } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'ended');
    return res.json as MaintenanceWindow;
  };
  const ofWeb = (kind: string) => (e: FleetEvent) => e.kind === kind && e.node_id === WEB;
  /** The one digest of a window, after making sure no second one follows. */
  const theDigest = async (windowId: string): Promise<WireMessage> => {
    await eventually(`digest of ${windowId}`, () => digestsOf(receiver, windowId).length > 0);
    await sleep(300);
    const digests = digestsOf(receiver, windowId);
    assert.equal(digests.length, 1, 'exactly one digest per channel');
    return digests[0]!;
  };
  const endedNotice = async (windowId: string): Promise<Notification> => {
    const found = (await notes('kind=maintenance.ended')).filter((n) => n.window_id === windowId);
    assert.equal(found.length, 1, `one maintenance.ended for ${windowId}`);
    return found[0]!;
  };

  before(async () => {
    orch = await startTestOrchestrator({ offlineNotifyDelayS: 0, heartbeatS: 1 });
    admin = await orch.adminToken();
    receiver = await startHttpReceiver();
    moduleDir = tempDir('corral-mw-files-');
    for (const node of [WEB, DB]) stateDirs.set(node, tempDir('corral-mw-agent-'));
    await Promise.all([start(WEB), start(DB)]);
    await tag(WEB, 'role', 'web');
    await tag(DB, 'role', 'db');
    const channel = await orch.api('POST', '/channels', { token: admin, body: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` } } });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.json.id;
  });
  after(async () => {
    for (const a of agents.values()) await a.dispose();
    await orch?.close();
    await receiver?.close();
    for (const dir of stateDirs.values()) removeDir(dir);
    if (moduleDir) removeDir(moduleDir);
  });

  it("holds a covered agent's alerts back from channels and sends one digest when the window ends early", async () => {
    const w = await createWindow(orch, admin, { name: 'web patching', selector: 'role=web', ends_at: inMs(HOUR), reason: 'kernel' });
    assert.equal(w.matching_agents, 1);

    // maintenance.started is about the window, not an agent: it goes out.
    const started = await eventually('maintenance.started delivered', () => deliveredEvents(receiver, (e) => e.kind === 'maintenance.started' && e.window_id === w.id)[0]);
    assert.equal(started.title, 'Maintenance started: web patching');
    assert.match(started.body, new RegExp(`^1 agent \\(role=web\\) until ${w.ends_at.replace(/[.]/g, '\\.')}`));
    assert.match(started.body, new RegExp(`Agents: ${WEB}$`, 'm'));
    assert.deepEqual((await orch.api('GET', `/agents/${WEB}`, { token: admin })).json.maintenance, { window_id: w.id, name: 'web patching', ends_at: w.ends_at });
    assert.equal((await orch.api('GET', `/agents/${DB}`, { token: admin })).json.maintenance, null);

    // The web agent dies and comes back: both alerts are recorded, held, and tied to the window.
    await kill(WEB);
    const offline = await eventually('held agent.offline', async () => (await notes(`kind=agent.offline&node_id=${WEB}`)).find((n) => n.held));
    assert.equal(offline.window_id, w.id);
    await start(WEB);
    const online = await eventually('held agent.online', async () => (await notes(`kind=agent.online&node_id=${WEB}`)).find((n) => n.held));
    assert.equal(online.window_id, w.id);

    // The db agent is outside the window: its offline alert goes out as usual.
    await kill(DB);
    await eventually('db agent.offline delivered', () => deliveredEvents(receiver, (e) => e.kind === 'agent.offline' && e.node_id === DB).length > 0);
    const dbOffline = (await notes(`kind=agent.offline&node_id=${DB}`))[0]!;
    assert.equal(dbOffline.held, false);
    assert.equal(dbOffline.window_id, null);
    assert.deepEqual(deliveredEvents(receiver, (e) => e.node_id === WEB && e.kind.startsWith('agent.')), [], 'nothing about the web agent reached the channel');

    const ended = await endNow(w.id);
    assert.ok(ended.ends_at <= new Date().toISOString());
    assert.deepEqual((await orch.api('GET', `/agents/${WEB}`, { token: admin })).json.maintenance, null, 'the marker is gone');
    const announced = await endedNotice(w.id);
    const digest = await theDigest(w.id);
    assert.equal(announced.title, 'Maintenance ended: web patching (2 held notifications)');
    assert.equal(digest.title, announced.title);
    assert.equal(digest.text, `${announced.title}\n${announced.body}`, 'the digest carries the same summary as the notification');
    const lines = announced.body.split('\n');
    assert.equal(lines[0], `Maintenance "web patching" (role=web) ran ${w.starts_at} to ${ended.ends_at}.`);
    assert.deepEqual(lines.slice(1), ['Reason: kernel', '2 notifications held back while it ran:', `- went offline: ${WEB}`, `- back online: ${WEB}`]);
    assert.deepEqual(digest.events.map((e) => e.kind), ['maintenance.ended', 'agent.offline', 'agent.online']);
    assert.deepEqual(digest.events.slice(1).map((e) => e.id), [offline.id, online.id]);

    // No storm: the web agent's individual alerts never went out, then or now.
    await sleep(200);
    assert.deepEqual(deliveredEvents(receiver, ofWeb('agent.offline')), []);
    assert.deepEqual(deliveredEvents(receiver, ofWeb('agent.online')), []);
    assert.deepEqual(deliveredEvents(receiver, (e) => e.kind === 'maintenance.ended'), [], 'maintenance.ended goes out only as the digest');
    const history = await orch.api('GET', `/channels/${channelId}/deliveries`, { token: admin });
    assert.equal(history.status, 200, history.text);
    const digestRows = history.json.items.filter((d: { kind: string; event_ids: string[] }) => d.kind === 'digest' && d.event_ids[0] === announced.id);
    assert.equal(digestRows.length, 1);
    assert.equal(digestRows[0].status, 'delivered');

    await start(DB);
  });

  it('says "still offline" for an agent that went down in the window and has not come back', async () => {
    const w = await createWindow(orch, admin, { name: 'web rebuild', selector: 'role=web', ends_at: inMs(HOUR) });
    await kill(WEB);
    const offline = await eventually('held agent.offline', async () => (await notes(`kind=agent.offline&node_id=${WEB}`)).find((n) => n.window_id === w.id));
    assert.equal(offline.held, true);
    const ended = await endNow(w.id);
    const announced = await endedNotice(w.id);
    const digest = await theDigest(w.id);
    assert.equal(announced.title, 'Maintenance ended: web rebuild (1 held notification, 1 agent still offline)');
    assert.equal(digest.text, `${announced.title}\n${announced.body}`);
    assert.deepEqual(announced.body.split('\n'), [
      `Maintenance "web rebuild" (role=web) ran ${w.starts_at} to ${ended.ends_at}.`,
      '1 notification held back while it ran:',
      `- went offline: ${WEB}`,
      `- still offline: ${WEB}`,
    ]);
    assert.deepEqual(deliveredEvents(receiver, ofWeb('agent.offline')), [], 'the held offline alert was not sent by itself');

    // Back after the window: that is told as usual (its offline was announced, in the digest).
    await start(WEB);
    const back = await eventually('agent.online delivered', () => deliveredEvents(receiver, ofWeb('agent.online'))[0]);
    const backNote = (await notes(`kind=agent.online&node_id=${WEB}`)).find((n) => n.id === back.id)!;
    assert.equal(backNote.held, false);
    assert.equal(backNote.window_id, null);
  });

  it('says "back online" for an agent that was down before the window and came back in it', async () => {
    const before = deliveredEvents(receiver, ofWeb('agent.offline')).length;
    await kill(WEB);
    await eventually('agent.offline delivered (no window yet)', () => deliveredEvents(receiver, ofWeb('agent.offline')).length > before);
    const w = await createWindow(orch, admin, { name: 'web repair', selector: 'role=web', ends_at: inMs(HOUR) });
    const onlineBefore = deliveredEvents(receiver, ofWeb('agent.online')).length;
    await start(WEB);
    const online = await eventually('held agent.online', async () => (await notes(`kind=agent.online&node_id=${WEB}`)).find((n) => n.window_id === w.id));
    assert.equal(online.held, true);
    const ended = await endNow(w.id);
    const announced = await endedNotice(w.id);
    const digest = await theDigest(w.id);
    assert.equal(digest.text, `${announced.title}\n${announced.body}`);
    assert.deepEqual(announced.body.split('\n'), [
      `Maintenance "web repair" (role=web) ran ${w.starts_at} to ${ended.ends_at}.`,
      '1 notification held back while it ran:',
      `- back online: ${WEB}`,
    ]);
    assert.equal(deliveredEvents(receiver, ofWeb('agent.online')).length, onlineBefore, 'the held agent.online was not sent by itself');
  });

  it('runs an only_in_maintenance assignment only inside a window', async () => {
    await tag(WEB, 'node', WEB);
    await uploadModule(
      orch,
      admin,
      `name: mw-motd
resources:
  - id: parent
    type: directory
    path: ${moduleDir}/{{ tags.node }}
  - id: banner
    type: file
    path: ${moduleDir}/{{ tags.node }}/motd
    content: "maintained\\n"
    requires: [parent]
`,
    );
    const created = await orch.api('POST', '/assignments', { token: admin, body: { name: 'mw-only', selector: 'role=web', modules: ['mw-motd'], only_in_maintenance: true } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.only_in_maintenance, true);
    const batch = async (kind: 'apply' | 'plan'): Promise<BatchSummary> => {
      const res = await orch.api('POST', `/assignments/mw-only/${kind}`, { token: admin, body: {} });
      assert.equal(res.status, 202, res.text);
      return eventually(`batch ${res.json.batch_id} done`, async () => {
        const b = (await orch.api('GET', `/state/batches/${res.json.batch_id}`, { token: admin })).json as BatchSummary;
        return b.done ? b : undefined;
      });
    };
    const motd = path.join(moduleDir, WEB, 'motd');

    const outside = await batch('apply');
    assert.equal(outside.total, 1);
    assert.deepEqual(outside.counts, { skipped: 1 });
    const skipped = outside.operations[0]!;
    assert.equal(skipped.node_id, WEB);
    assert.equal(skipped.status, 'skipped');
    const op = await orch.api('GET', `/state/operations/${skipped.operation_id}`, { token: admin });
    assert.equal(op.json.code, 'outside_maintenance', op.text);
    assert.match(op.json.message, /maintenance window/);
    assert.equal(existsSync(motd), false, 'nothing was applied');
    // A plan is not restricted: it changes nothing anyway.
    const plan = await batch('plan');
    assert.equal(plan.counts.succeeded, 1, JSON.stringify(plan));

    const w = await createWindow(orch, admin, { name: 'apply time', selector: 'role=web', ends_at: inMs(HOUR) });
    const inside = await batch('apply');
    assert.deepEqual(inside.counts, { succeeded: 1 }, JSON.stringify(inside));
    assert.equal(readFileSync(motd, 'utf8'), 'maintained\n');
    // Its apply.succeeded is held like any other event of a covered agent, and summarised.
    const applied = await eventually('apply.succeeded', async () => (await notes(`kind=apply.succeeded&node_id=${WEB}`)).find((n) => n.operation_id === inside.operations[0]!.operation_id));
    assert.equal(applied.held, true);
    assert.equal(applied.window_id, w.id);
    await endNow(w.id);
    const digest = await theDigest(w.id);
    assert.ok(digest.text.split('\n').includes(`- apply succeeded: ${WEB}`), digest.text);
    assert.deepEqual(deliveredEvents(receiver, (e) => e.kind === 'apply.succeeded'), []);

    // After the window: skipped again.
    const afterwards = await batch('apply');
    assert.deepEqual(afterwards.counts, { skipped: 1 });
    assert.equal((await orch.api('DELETE', '/assignments/mw-only', { token: admin })).status, 204);
  });

  it('ends an active window before deleting it: the end is announced and the digest sent', async () => {
    const w = await createWindow(orch, admin, { name: 'short-lived', selector: 'role=web', ends_at: inMs(HOUR) });
    assert.equal((await orch.api('GET', `/agents/${WEB}`, { token: admin })).json.maintenance?.window_id, w.id);
    const del = await orch.api('DELETE', `/maintenance-windows/${w.id}`, { token: admin });
    assert.equal(del.status, 204, del.text);
    assertProblem(await orch.api('GET', `/maintenance-windows/${w.id}`, { token: admin }), 404, 'window-not-found');
    assert.ok(!(await orch.api('GET', '/maintenance-windows', { token: admin })).json.items.some((x: MaintenanceWindow) => x.id === w.id));
    assert.equal((await orch.api('GET', `/agents/${WEB}`, { token: admin })).json.maintenance, null);
    const announced = await endedNotice(w.id);
    assert.equal(announced.title, 'Maintenance ended: short-lived (0 held notifications)');
    assert.match(announced.body, /Nothing was held back\./);
    const digest = await theDigest(w.id);
    assert.equal(digest.text, `${announced.title}\n${announced.body}`);
    assert.deepEqual(digest.events.map((e) => e.id), [announced.id]);
    assertProblem(await orch.api('DELETE', `/maintenance-windows/${w.id}`, { token: admin }), 404, 'window-not-found');
  });
});

describe('maintenance windows across restarts', () => {
  let dataDir: string;
  let receiver: HttpReceiver;
  let current: TestOrchestrator | undefined;

  before(async () => {
    dataDir = tempDir('corral-mw-restart-');
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await current?.close();
    await receiver?.close();
    removeDir(dataDir);
  });

  it('announces an end passed while stopped once, at the next start, and never again', async () => {
    const first = await startTestOrchestrator({ dataDir, keepDataDir: true });
    current = first;
    const adminKey = first.adminKey!;
    let admin = await first.adminToken();
    const channel = await first.api('POST', '/channels', { token: admin, body: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` } } });
    assert.equal(channel.status, 201, channel.text);
    const w = await createWindow(first, admin, { name: 'overnight', selector: 'role=web', ends_at: inMs(1500) });
    assert.equal(w.status, 'active');
    // Starts and ends while the orchestrator is stopped: both are announced at the next start, in order.
    const unseen = await createWindow(first, admin, { name: 'while down', selector: 'role=db', starts_at: inMs(700), ends_at: inMs(1200) });
    assert.equal(unseen.status, 'scheduled');
    await eventually('maintenance.started delivered', () => deliveredEvents(receiver, (e) => e.kind === 'maintenance.started' && e.window_id === w.id).length > 0);
    await first.close();
    current = undefined;

    await sleep(Math.max(0, Date.parse(w.ends_at) - Date.now()) + 300);
    assert.deepEqual(digestsOf(receiver, w.id), [], 'nothing was announced while stopped');

    const second = await startTestOrchestrator({ dataDir, keepDataDir: true, admin: adminKey });
    current = second;
    admin = await second.adminToken();
    const endedFor = async (orch: TestOrchestrator) => (await notifications(orch, admin, 'kind=maintenance.ended')).filter((n) => n.window_id === w.id);
    assert.equal((await endedFor(second)).length, 1, 'announced during start');
    assert.equal((await second.api('GET', `/maintenance-windows/${w.id}`, { token: admin })).json.status, 'ended');
    await eventually('digest delivered after the restart', () => digestsOf(receiver, w.id).length > 0);
    await sleep(500);
    assert.equal((await endedFor(second)).length, 1, 'still once after a while');
    assert.equal(digestsOf(receiver, w.id).length, 1);
    assert.equal((await notifications(second, admin, 'kind=maintenance.started')).filter((n) => n.window_id === w.id).length, 1, 'the start is not announced again');
    // Both are raised in one tick, often within the same millisecond: compare times, not list order.
    const unseenNotes = (await notifications(second, admin, '')).filter((n) => n.window_id === unseen.id);
    assert.deepEqual(unseenNotes.map((n) => n.kind).sort(), ['maintenance.ended', 'maintenance.started'], 'both boundaries, once each');
    const at = (kind: string) => unseenNotes.find((n) => n.kind === kind)!.created_at;
    assert.ok(at('maintenance.started') <= at('maintenance.ended'), 'the start is announced first');
    assert.equal(digestsOf(receiver, unseen.id).length, 1);
    await second.close();
    current = undefined;

    const third = await startTestOrchestrator({ dataDir, keepDataDir: true, admin: adminKey });
    current = third;
    admin = await third.adminToken();
    await sleep(500);
    assert.equal((await endedFor(third)).length, 1, 'a second restart does not announce it again');
    assert.equal(digestsOf(receiver, w.id).length, 1);
    assert.equal((await notifications(third, admin, '')).filter((n) => n.window_id === unseen.id).length, 2);
    assert.equal(digestsOf(receiver, unseen.id).length, 1);
  });
});
