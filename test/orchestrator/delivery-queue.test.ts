// The channel delivery queue against real receivers: retries that back off, batching,
// filters, templates, sealed credentials, and a kill -9 of the orchestrator mid-delivery.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Channel, Delivery } from '../../common/schemas/channels.js';
import { eventually, startServedOrchestrator, type ServedOrchestrator } from '../helpers/fleet.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { assertProblem, removeDir, startTestOrchestrator, tempDir, type TestOrchestrator } from '../helpers/orchestrator.js';

interface WebhookBody {
  delivery_id: number;
  kind: string;
  title: string;
  text: string;
  events: { kind: string; title: string }[];
}

const body = (r: { json: unknown }) => r.json as WebhookBody;

describe('channel delivery queue', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let operator: string;
  let receiver: HttpReceiver;
  let secrets = 0;

  const channel = async (name: string, extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Promise<Channel> => {
    const res = await orch.api('POST', '/channels', { token: admin, body: { name, type: 'webhook', config: { url: `${receiver.url}/${name}`, ...config }, ...extra } });
    assert.equal(res.status, 201, res.text);
    return res.json as Channel;
  };
  const deliveries = async (id: string): Promise<Delivery[]> => (await orch.api('GET', `/channels/${id}/deliveries`, { token: admin })).json.items as Delivery[];
  const raiseSecretEvent = async () => {
    const res = await orch.api('POST', '/secrets', { token: operator, body: { name: `queue_secret_${++secrets}`, value: 'v' } });
    assert.equal(res.status, 201, res.text);
  };
  const to = (name: string) => receiver.requests.filter((r) => r.path === `/${name}`);
  const remove = (id: string) => orch.api('DELETE', `/channels/${id}`, { token: admin });

  before(async () => {
    receiver = await startHttpReceiver();
    orch = await startTestOrchestrator({ deliveryRetryBaseS: 0.3, deliveryRetryCapS: 1.2, deliveryMaxAttempts: 5, offlineNotifyDelayS: 0 });
    admin = await orch.adminToken();
    operator = (await orch.loginAs('operator', 'queue-op')).token;
  });
  after(async () => {
    await orch.close();
    await receiver.close();
  });

  it('retries a failing receiver with exponential backoff up to the cap, then gives up and says why', async () => {
    const c = await channel('flaky', { events: ['secret.changed'] });
    receiver.respondWith(503, 'down for maintenance');
    await raiseSecretEvent();
    await eventually('five attempts', () => to('flaky').length >= 5, 20_000);
    const times = to('flaky').map((r) => r.at);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // 0.3 s, 0.6 s, 1.2 s, then capped at 1.2 s (each +-10 %).
    const expected = [300, 600, 1200, 1200];
    gaps.forEach((gap, i) => assert.ok(gap >= expected[i]! * 0.85 && gap < expected[i]! * 1.1 + 700, `gap ${i + 1} was ${gap} ms, expected about ${expected[i]} ms (all: ${gaps.join(', ')})`));
    assert.ok(gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!, `backoff grows: ${gaps.join(', ')}`);
    const [failed] = await eventually('marked failed', async () => {
      const d = await deliveries(c.id);
      return d[0]?.status === 'failed' && d;
    });
    assert.equal(failed!.attempts, 5);
    assert.match(failed!.last_error ?? '', /HTTP 503/);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(to('flaky').length, 5, 'no attempt after the last');
    const health = (await orch.api('GET', `/channels/${c.id}`, { token: admin })).json as Channel;
    assert.equal(health.delivery.failed, 1);
    assert.equal(health.delivery.pending, 0);
    assert.match(health.delivery.last_error ?? '', /HTTP 503/);
    assert.equal(health.delivery.last_success_at, null);
    receiver.respondWith(200);
    await remove(c.id);
  });

  it('does not retry what the receiver refuses for good (404)', async () => {
    const c = await channel('gone', { events: ['secret.changed'] });
    receiver.respondWith(404, 'no such hook');
    await raiseSecretEvent();
    const [d] = await eventually('failed', async () => {
      const list = await deliveries(c.id);
      return list[0]?.status === 'failed' && list;
    });
    assert.equal(d!.attempts, 1);
    assert.match(d!.last_error ?? '', /HTTP 404/);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(to('gone').length, 1);
    receiver.respondWith(200);
    await remove(c.id);
  });

  it('sends events that arrive within batch_seconds as one message', async () => {
    const c = await channel('batched', { events: ['secret.changed'], batch_seconds: 1 });
    for (let i = 0; i < 4; i++) await raiseSecretEvent();
    const [req] = await eventually('the batch', () => to('batched').length >= 1 && to('batched'), 5000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(to('batched').length, 1, 'one request for four events');
    const b = body(req!);
    assert.equal(b.events.length, 4);
    assert.match(b.title, /^4 Corral events: 4 secret\.changed/);
    assert.equal((await deliveries(c.id)).filter((d) => d.status === 'delivered').length, 4, 'each queued event is marked delivered');
    await remove(c.id);
  });

  it('filters by event kind and minimum severity, and renders the template', async () => {
    const c = await channel('picky', { events: ['operator.added', 'operator.removed'], min_severity: 'warning', template: 'ALERT [{{ severity }}] {{ kind }}: {{ title }} via {{channel}}' });
    await raiseSecretEvent(); // not a kind it takes
    await orch.loginAs('viewer', 'picky-viewer'); // operator.added is info: below warning
    assert.equal((await orch.api('DELETE', '/operators/picky-viewer', { token: admin })).status, 204); // operator.removed is a warning
    const [req] = await eventually('the removal', () => to('picky').length >= 1 && to('picky'));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(to('picky').length, 1, 'only the warning of a kind it takes');
    assert.equal(body(req!).text, 'ALERT [warning] operator.removed: Operator picky-viewer removed by admin via picky');
    await remove(c.id);
  });

  it('seals credentials: never returned, kept on update unless replaced or cleared, not in the database file', async () => {
    const hmac = 'hmac-key-that-must-not-leak-0123456789';
    const c = await channel('sealed', { enabled: false }, { secret: hmac, headers: { Authorization: 'Bearer header-token-that-must-not-leak' } });
    assert.deepEqual(c.config, { url: `${receiver.url}/sealed`, secret: { set: true }, headers: { set: true } });
    const listed = await orch.api('GET', '/channels', { token: operator });
    assert.doesNotMatch(listed.text, /must-not-leak/);
    const files = readdirSync(orch.dataDir).filter((f) => f.startsWith('corral.db'));
    for (const f of files) assert.ok(!readFileSync(path.join(orch.dataDir, f)).includes(hmac), `${f} holds the key in the clear`);

    // Renaming keeps both credentials; {set: true} keeps one; null clears the other.
    let res = await orch.api('PUT', `/channels/${c.id}`, { token: admin, body: { name: 'sealed-renamed' } });
    assert.deepEqual(res.json.config, c.config);
    res = await orch.api('PUT', `/channels/${c.id}`, { token: admin, body: { config: { url: `${receiver.url}/sealed`, secret: { set: true }, headers: null } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.config, { url: `${receiver.url}/sealed`, secret: { set: true } });
    const test = await orch.api('POST', `/channels/${c.id}/test`, { token: admin });
    assert.equal(test.status, 200, test.text);
    assert.equal(test.json.ok, true, 'a test goes out even while the channel is disabled');
    const [sent] = to('sealed');
    assert.equal(sent!.headers.authorization, undefined, 'the cleared header is gone');
    assert.ok(String(sent!.headers['x-corral-signature']).startsWith('sha256='), 'the kept HMAC key still signs');
    await remove(c.id);
  });

  it('answers a test send with the outcome, failure included, and records it in the history', async () => {
    const c = await channel('tested');
    receiver.respondWith(500, 'boom');
    const failed = await orch.api('POST', `/channels/${c.id}/test`, { token: admin });
    assert.equal(failed.status, 200, failed.text);
    assert.equal(failed.json.ok, false);
    assert.equal(failed.json.status_code, 500);
    assert.match(failed.json.detail, /HTTP 500/);
    receiver.respondWith(204);
    const ok = await orch.api('POST', `/channels/${c.id}/test`, { token: admin });
    assert.deepEqual({ ok: ok.json.ok, detail: ok.json.detail, status_code: ok.json.status_code }, { ok: true, detail: 'HTTP 204', status_code: 204 });
    const history = await deliveries(c.id);
    assert.deepEqual(history.map((d) => [d.kind, d.status]), [['test', 'delivered'], ['test', 'failed']]);
    assertProblem(await orch.api('POST', `/channels/${c.id}/test`, { token: operator }), 403, 'role-required');
    assertProblem(await orch.api('POST', '/channels/00000000-0000-4000-8000-000000000000/test', { token: admin }), 404, 'channel-not-found');
    receiver.respondWith(200);
    await remove(c.id);
  });

  it('refuses bad channels naming the field, and stores nothing', async () => {
    const bad = async (payload: unknown, field: RegExp, code = 'validation-failed') => {
      const res = await orch.api('POST', '/channels', { token: admin, body: payload });
      assertProblem(res, 400, code);
      assert.ok((res.json.errors ?? []).some((e: { field: string }) => field.test(e.field)), `expected an error on ${field}: ${res.text}`);
    };
    await bad({ name: 'x', type: 'webhook', config: { url: 'not a url' } }, /^body\.config\.url$/);
    await bad({ name: 'x', type: 'webhook', config: { url: 'ftp://example.com/hook' } }, /^body\.config\.url$/);
    await bad({ name: 'x', type: 'pager', config: {} }, /^body\.type$/);
    await bad({ name: 'x', type: 'ntfy', config: {} }, /^body\.config\.topic$/);
    await bad({ name: 'x', type: 'email', config: { host: 'smtp.example.com', port: 587, security: 'starttls', from: 'corral@example.com' } }, /^body\.config\.to$/);
    await bad({ name: 'x', type: 'email', config: { host: 'smtp.example.com', port: 99999, security: 'starttls', from: 'a@b.c', to: ['d@e.f'] } }, /^body\.config\.port$/);
    await bad({ name: 'x', type: 'slack', config: { webhook_url: 'https://hooks.slack.com/services/x', colour: 'red' } }, /^body\.config\.colour$/);
    await bad({ name: 'x', type: 'webhook', config: { url: 'https://example.com' }, template: 'hi {{ nonsense }}' }, /^body\.template$/);
    await bad({ name: 'x', type: 'webhook', config: { url: 'https://example.com' }, events: ['agent.exploded'] }, /^body\.events/);
    await bad({ name: 'x', type: 'webhook', config: { url: 'https://example.com' }, min_severity: 'loud' }, /^body\.min_severity/);
    await bad({ type: 'webhook', config: { url: 'https://example.com' } }, /name/);
    const first = await channel('unique');
    assertProblem(await orch.api('POST', '/channels', { token: admin, body: { name: 'unique', type: 'desktop', config: {} } }), 409, 'channel-exists');
    assertProblem(await orch.api('PUT', `/channels/${first.id}`, { token: admin, body: { type: 'email' } }), 400);
    assertProblem(await orch.api('POST', '/channels', { token: operator, body: { name: 'y', type: 'desktop', config: {} } }), 403, 'role-required');
    const names = ((await orch.api('GET', '/channels', { token: admin })).json.items as Channel[]).map((c) => c.name);
    assert.deepEqual(names, ['unique']);
    await remove(first.id);
  });

  it('lists channels by name, a page at a time', async () => {
    const made = [await channel('page-c'), await channel('page-a'), await channel('page-b')];
    const first = await orch.api('GET', '/channels?limit=2', { token: operator });
    assert.deepEqual((first.json.items as Channel[]).map((c) => c.name), ['page-a', 'page-b']);
    assert.ok(first.json.next_cursor);
    const second = await orch.api('GET', `/channels?limit=2&cursor=${first.json.next_cursor}`, { token: operator });
    assert.deepEqual((second.json.items as Channel[]).map((c) => c.name), ['page-c']);
    assert.equal(second.json.next_cursor, null);
    assertProblem(await orch.api('GET', '/channels?cursor=garbage', { token: operator }), 400, 'invalid-cursor');
    for (const c of made) await remove(c.id);
  });
});

describe('channel delivery survives a kill -9 of the orchestrator', () => {
  let dir: string;
  let served: ServedOrchestrator | undefined;
  let receiver: HttpReceiver;

  before(async () => {
    dir = tempDir('corral-queue-crash-');
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await served?.kill('SIGKILL');
    await receiver.close();
    removeDir(dir);
  });

  it('resends what was in flight, and nothing already acknowledged', { timeout: 90_000 }, async () => {
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'corral.yaml'), 'delivery_timeout_s: 120\n');
    served = await startServedOrchestrator({ dir, dataDir });
    let admin = await served.adminToken();
    const created = await served.api('POST', '/channels', { token: admin, body: { name: 'crash', type: 'webhook', config: { url: receiver.url }, events: ['secret.changed'] } });
    assert.equal(created.status, 201, created.text);
    const channelId = created.json.id as string;

    assert.equal((await served.api('POST', '/secrets', { token: admin, body: { name: 'acknowledged', value: 'x' } })).status, 201);
    await receiver.waitFor(1);
    const acknowledged = receiver.requests[0]!.headers['x-corral-delivery'];

    receiver.hang(true);
    assert.equal((await served.api('POST', '/secrets', { token: admin, body: { name: 'in_flight', value: 'x' } })).status, 201);
    await receiver.waitFor(2);
    const inFlight = receiver.requests[1]!.headers['x-corral-delivery'];
    assert.match(body(receiver.requests[1]!).title, /in_flight/);
    await served.kill('SIGKILL');
    receiver.hang(false);

    const adminKey = served.adminKey;
    served = await startServedOrchestrator({ dir, dataDir, adminKey });
    admin = await served.adminToken();
    await receiver.waitFor(3, 15_000);
    const resent = receiver.requests[2]!;
    assert.equal(resent.headers['x-corral-delivery'], inFlight, 'the same delivery, so a receiver can drop a repeat');
    assert.match(body(resent).title, /in_flight/);
    const list = (await served.api('GET', `/channels/${channelId}/deliveries`, { token: admin })).json.items as Delivery[];
    assert.deepEqual(list.map((d) => [d.status, d.attempts]), [['delivered', 2], ['delivered', 1]]);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(receiver.requests.filter((r) => r.headers['x-corral-delivery'] === acknowledged).length, 1, 'the acknowledged delivery was not sent again');
    assert.equal(receiver.requests.length, 3);
  });
});
