// Every channel provider against a real receiver on 127.0.0.1: an HTTP server for webhook,
// Slack, Discord and ntfy, an SMTP server (STARTTLS, implicit TLS, plain) for email.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PACKAGE_VERSION } from '../../common/node/package-root.js';
import type { EmailConfig } from '../../common/schemas/channels.js';
import type { ChannelMessage, DesktopNotice, DesktopOutlet, SendContext } from '../../orchestrator/services/channels/provider.js';
import { desktopProvider } from '../../orchestrator/services/channels/providers/desktop.js';
import { discordProvider } from '../../orchestrator/services/channels/providers/discord.js';
import { emailProvider } from '../../orchestrator/services/channels/providers/email.js';
import { ntfyProvider } from '../../orchestrator/services/channels/providers/ntfy.js';
import { slackProvider } from '../../orchestrator/services/channels/providers/slack.js';
import { webhookProvider } from '../../orchestrator/services/channels/providers/webhook.js';
import { builtinRegistry, ChannelRegistry, providerFor, sendThrough } from '../../orchestrator/services/channels/registry.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';

const EVENT = {
  id: '00000000-0000-4000-8000-000000000001',
  kind: 'agent.offline' as const,
  severity: 'critical' as const,
  title: 'web-1 is offline',
  body: 'No heartbeat for 30 s.',
  node_id: 'web-1',
  operation_id: null,
  window_id: null,
  actor: null,
  created_at: '2025-01-02T03:04:05.000Z',
};

function message(over: Partial<ChannelMessage> = {}): ChannelMessage {
  return {
    delivery_id: 42,
    kind: 'event',
    severity: 'critical',
    title: 'web-1 is offline',
    text: 'web-1 is offline\nNo heartbeat for 30 s.\nNode: web-1',
    events: [EVENT],
    link: 'https://corral.example.com/#/agents/web-1',
    channel: 'ops',
    created_at: '2025-01-02T03:04:06.000Z',
    ...over,
  };
}

const noDesktop: DesktopOutlet = { browsers: () => 0 };
const ctx = (timeoutMs = 5000, desktop: DesktopOutlet = noDesktop): SendContext => ({ signal: AbortSignal.timeout(timeoutMs), desktop });

describe('HTTP providers against a real receiver', () => {
  let rx: HttpReceiver;
  before(async () => {
    rx = await startHttpReceiver();
  });
  after(() => rx.close());
  const fresh = () => {
    rx.requests.length = 0;
    rx.respondWith(200);
  };

  it('webhook: POSTs the message as JSON with delivery, event, timestamp and a verifiable signature', async () => {
    fresh();
    const secret = 'a-very-secret-signing-key';
    const before = Math.floor(Date.now() / 1000);
    const out = await webhookProvider.send(message(), { url: `${rx.url}/hook?src=corral`, secret, headers: { Authorization: 'Bearer abc', 'X-Team': 'ops' } }, ctx());
    assert.deepEqual({ ok: out.ok, detail: out.detail, status_code: out.status_code, retry: out.retry }, { ok: true, detail: 'HTTP 200', status_code: 200, retry: undefined });
    assert.ok(out.duration_ms >= 0);

    const [req] = await rx.waitFor(1);
    assert.equal(req!.method, 'POST');
    assert.equal(req!.path, '/hook?src=corral');
    assert.equal(req!.headers['content-type'], 'application/json');
    assert.equal(req!.headers['user-agent'], `Corral/${PACKAGE_VERSION}`);
    assert.equal(req!.headers['x-corral-delivery'], '42');
    assert.equal(req!.headers['x-corral-event'], 'agent.offline');
    assert.equal(req!.headers.authorization, 'Bearer abc');
    assert.equal(req!.headers['x-team'], 'ops');
    const ts = Number(req!.headers['x-corral-timestamp']);
    assert.ok(Number.isInteger(ts) && ts >= before && ts <= Math.ceil(Date.now() / 1000), `timestamp ${ts}`);

    // Verify as a receiver would: HMAC over "<timestamp>.<raw body>".
    const expected = createHmac('sha256', secret).update(`${req!.headers['x-corral-timestamp']}.${req!.raw}`).digest('hex');
    assert.equal(req!.headers['x-corral-signature'], `sha256=${expected}`);

    assert.deepEqual(req!.json, {
      delivery_id: 42,
      kind: 'event',
      severity: 'critical',
      title: 'web-1 is offline',
      text: 'web-1 is offline\nNo heartbeat for 30 s.\nNode: web-1',
      events: [EVENT],
      link: 'https://corral.example.com/#/agents/web-1',
      channel: 'ops',
      created_at: '2025-01-02T03:04:06.000Z',
    });
  });

  it('webhook: no secret, no signature; extra headers cannot replace Corral\'s; test and digest name themselves', async () => {
    fresh();
    const headers = { 'X-Corral-Event': 'forged', 'Content-Type': 'text/plain', 'User-Agent': 'custom-agent' };
    await webhookProvider.send(message({ kind: 'test', events: [], severity: 'info' }), { url: rx.url, headers }, ctx());
    await webhookProvider.send(message({ kind: 'digest' }), { url: rx.url }, ctx());
    const [test, digest] = await rx.waitFor(2);
    assert.equal(test!.headers['x-corral-signature'], undefined);
    assert.equal(test!.headers['x-corral-event'], 'test');
    assert.equal(test!.headers['content-type'], 'application/json');
    // User-Agent is not reserved: an operator may need a specific one.
    assert.equal(test!.headers['user-agent'], 'custom-agent');
    assert.equal(digest!.headers['x-corral-event'], 'digest');
  });

  it('slack: one mrkdwn text with the title in bold, channel and username, markup escaped', async () => {
    fresh();
    const out = await slackProvider.send(message({ title: 'a <b> & c', text: 'line <@here>' }), { webhook_url: `${rx.url}/services/T/B/X`, channel: '#ops', username: 'corral' }, ctx());
    assert.equal(out.ok, true);
    const [req] = await rx.waitFor(1);
    assert.equal(req!.path, '/services/T/B/X');
    assert.equal(req!.headers['content-type'], 'application/json');
    assert.deepEqual(req!.json, { text: '*a &lt;b&gt; &amp; c*\nline &lt;@here&gt;', channel: '#ops', username: 'corral' });
  });

  it('discord: an embed coloured by severity within Discord\'s limits; 204 is success', async () => {
    fresh();
    rx.respondWith(204);
    const out = await discordProvider.send(message({ title: 'T'.repeat(300), text: 'x'.repeat(5000), severity: 'warning' }), { webhook_url: `${rx.url}/api/webhooks/1/abc`, username: 'corral' }, ctx());
    assert.deepEqual([out.ok, out.detail, out.status_code], [true, 'HTTP 204', 204]);
    const [req] = await rx.waitFor(1);
    const body = req!.json as { username: string; embeds: Record<string, unknown>[]; allowed_mentions: unknown; content?: string };
    assert.equal(body.username, 'corral');
    assert.deepEqual(body.allowed_mentions, { parse: [] });
    const embed = body.embeds[0]!;
    assert.equal((embed.title as string).length, 256);
    assert.equal((embed.description as string).length, 4096);
    assert.ok((embed.description as string).endsWith('…'));
    assert.equal(embed.color, 0xf59e0b);
    assert.equal(embed.timestamp, '2025-01-02T03:04:06.000Z');
    assert.equal(embed.url, 'https://corral.example.com/#/agents/web-1');
  });

  it('ntfy: JSON to the server root with topic, priority, tags, click and the bearer token', async () => {
    fresh();
    const out = await ntfyProvider.send(message(), { server_url: `${rx.url}/ntfy/`, topic: 'corral-alerts', token: 'tk_secret' }, ctx());
    assert.equal(out.ok, true);
    await ntfyProvider.send(message({ severity: 'info', link: null }), { server_url: rx.url, topic: 'corral-alerts' }, ctx());
    const [withToken, plain] = await rx.waitFor(2);
    assert.equal(withToken!.path, '/ntfy/');
    assert.equal(withToken!.headers.authorization, 'Bearer tk_secret');
    assert.deepEqual(withToken!.json, {
      topic: 'corral-alerts',
      title: 'web-1 is offline',
      message: 'web-1 is offline\nNo heartbeat for 30 s.\nNode: web-1',
      priority: 5,
      tags: ['rotating_light'],
      click: 'https://corral.example.com/#/agents/web-1',
    });
    assert.equal(plain!.path, '/');
    assert.equal(plain!.headers.authorization, undefined);
    assert.deepEqual([(plain!.json as { priority: number }).priority, (plain!.json as { click?: string }).click], [3, undefined]);
  });

  it('a 5xx fails with the status and the body, and may be retried', async () => {
    fresh();
    rx.respondWith(500, 'database is down');
    const out = await webhookProvider.send(message(), { url: rx.url }, ctx());
    assert.deepEqual({ ok: out.ok, detail: out.detail, status_code: out.status_code, retry: out.retry }, { ok: false, detail: 'HTTP 500: database is down', status_code: 500, retry: true });
  });

  it('a 4xx is not retried (except 408 and 429); a long body is cut to 200 characters', async () => {
    fresh();
    rx.respondWith(404, 'no_service ' + 'z'.repeat(500));
    const out = await slackProvider.send(message(), { webhook_url: rx.url }, ctx());
    assert.equal(out.ok, false);
    assert.equal(out.retry, false);
    assert.equal(out.status_code, 404);
    assert.ok(out.detail.startsWith('HTTP 404: no_service zzz'));
    assert.equal(out.detail.length, 'HTTP 404: '.length + 201);
    rx.respondWith(429, 'slow down');
    assert.equal((await discordProvider.send(message(), { webhook_url: rx.url }, ctx())).retry, true);
    rx.respondWith(408);
    assert.equal((await ntfyProvider.send(message(), { server_url: rx.url, topic: 't' }, ctx())).retry, true);
  });

  it('a redirect is not followed', async () => {
    fresh();
    rx.respondWith(302);
    const out = await webhookProvider.send(message(), { url: rx.url }, ctx());
    assert.equal(out.ok, false);
    assert.match(out.detail, /^HTTP 302: redirects are not followed/);
    assert.equal(rx.requests.length, 1);
  });

  it('a closed port fails with "connection refused" and may be retried', async () => {
    const gone = await startHttpReceiver();
    await gone.close();
    const out = await webhookProvider.send(message(), { url: `${gone.url}/hook` }, ctx());
    assert.deepEqual({ ok: out.ok, status_code: out.status_code, retry: out.retry }, { ok: false, status_code: null, retry: true });
    assert.equal(out.detail, `cannot connect to ${gone.url.slice('http://'.length)}: connection refused`);
  });

  it('a receiver that never answers is given up on when the signal fires', async () => {
    fresh();
    rx.hang(true);
    try {
      const started = Date.now();
      const out = await webhookProvider.send(message(), { url: rx.url }, ctx(300));
      const took = Date.now() - started;
      assert.ok(took >= 250 && took < 3000, `took ${took} ms`);
      assert.equal(out.ok, false);
      assert.equal(out.retry, true);
      assert.match(out.detail, /^no answer from 127\.0\.0\.1:\d+ in time: gave up/);
      assert.equal(rx.requests.length, 1);
    } finally {
      rx.hang(false);
    }
  });
});

describe('registry and sendThrough', () => {
  it('has the six built-ins and refuses a second provider for a type', () => {
    assert.deepEqual(builtinRegistry().types().sort(), ['desktop', 'discord', 'email', 'ntfy', 'slack', 'webhook']);
    assert.equal(providerFor('ntfy'), ntfyProvider);
    assert.throws(() => builtinRegistry().register(webhookProvider), /already registered/);
    assert.throws(() => new ChannelRegistry().providerFor('slack'), /no provider for channel type slack/);
  });

  it('sends through the provider and times the whole call', async () => {
    const rx = await startHttpReceiver();
    try {
      const out = await sendThrough('webhook', message(), { url: rx.url }, ctx());
      assert.deepEqual([out.ok, out.detail], [true, 'HTTP 200']);
      assert.equal(Number.isInteger(out.duration_ms), true);
      assert.equal((await rx.waitFor(1)).length, 1);
    } finally {
      await rx.close();
    }
  });

  it('turns an invalid config, an unknown type and a throwing provider into ok: false', async () => {
    const bad = await sendThrough('webhook', message(), { url: 'ftp://x.example.com/' }, ctx());
    assert.deepEqual({ ok: bad.ok, retry: bad.retry, status_code: bad.status_code }, { ok: false, retry: false, status_code: null });
    assert.match(bad.detail, /config\.url must be an http\(s\) URL/);

    const unknown = await sendThrough('pager' as 'webhook', message(), {}, ctx());
    assert.deepEqual([unknown.ok, unknown.retry, unknown.detail], [false, false, 'unknown channel type pager']);

    const broken = new ChannelRegistry().register({
      type: 'desktop',
      send: () => {
        throw new Error('kaput');
      },
    });
    const thrown = await sendThrough('desktop', message(), {}, ctx(), broken);
    assert.equal(thrown.ok, false);
    assert.equal(thrown.detail, 'the desktop provider failed unexpectedly: kaput');
    assert.ok(thrown.duration_ms >= 0);
  });
});

describe('email against a real SMTP server', () => {
  const users = { alice: 'correct horse' };
  let starttls: SmtpReceiver;
  let implicit: SmtpReceiver;
  let plain: SmtpReceiver;
  let silent: Server;
  const silentSockets = new Set<Socket>();

  before(async () => {
    [starttls, implicit, plain] = await Promise.all([startSmtpReceiver({ mode: 'starttls', users }), startSmtpReceiver({ mode: 'tls', users }), startSmtpReceiver({ mode: 'plain' })]);
    // Accepts connections and never greets: an SMTP server that hangs.
    silent = createServer((s) => {
      silentSockets.add(s);
      s.on('close', () => silentSockets.delete(s));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  });
  after(async () => {
    for (const s of silentSockets) s.destroy();
    await Promise.all([starttls.close(), implicit.close(), plain.close(), new Promise((r) => silent.close(r))]);
  });

  const config = (rx: { host: string; port: number }, over: Partial<EmailConfig> = {}): EmailConfig => ({
    host: rx.host,
    port: rx.port,
    security: 'starttls',
    username: 'alice',
    password: 'correct horse',
    from: 'corral@example.com',
    to: ['ops@example.com', 'oncall@example.com'],
    allow_invalid_certificate: true,
    ...over,
  });

  it('sends over STARTTLS with a login: subject, text, escaped HTML, the SMTP reply as detail', async () => {
    const out = await emailProvider.send(message({ text: 'web-1 is offline\nload <b>high</b> & rising' }), config(starttls), ctx());
    assert.equal(out.ok, true, out.detail);
    assert.equal(out.status_code, 250);
    assert.match(out.detail, /^250 /);
    const [mail] = await starttls.waitFor(1);
    assert.equal(mail!.secure, true);
    assert.equal(mail!.user, 'alice');
    assert.equal(mail!.from, 'corral@example.com');
    assert.deepEqual(mail!.to, ['ops@example.com', 'oncall@example.com']);
    assert.match(mail!.raw, /^Subject: \[Corral\] web-1 is offline\r?$/m);
    assert.match(mail!.raw, /^X-Corral-Delivery: 42\r?$/m);
    assert.match(mail!.raw, /^From: Corral <corral@example\.com>\r?$/m);
    assert.ok(mail!.raw.includes('load <b>high</b> & rising'), 'plain text part');
    assert.ok(mail!.raw.includes('load &lt;b&gt;high&lt;/b&gt; &amp; rising'), 'HTML part escaped');
  });

  it('sends over implicit TLS', async () => {
    const out = await emailProvider.send(message(), config(implicit, { security: 'tls' }), ctx());
    assert.equal(out.ok, true, out.detail);
    const [mail] = await implicit.waitFor(1);
    assert.equal(mail!.secure, true);
    assert.equal(mail!.user, 'alice');
  });

  it('sends in clear to a local relay with security none', async () => {
    const before = plain.messages.length;
    const out = await emailProvider.send(message(), config(plain, { security: 'none', username: undefined, password: undefined }), ctx());
    assert.equal(out.ok, true, out.detail);
    const mails = await plain.waitFor(before + 1);
    assert.equal(mails[before]!.secure, false);
  });

  it('a wrong password fails with the server\'s reply and is not retried', async () => {
    const out = await emailProvider.send(message(), config(starttls, { password: 'wrong' }), ctx());
    assert.equal(out.ok, false);
    assert.equal(out.retry, false);
    assert.equal(out.status_code, 535);
    assert.match(out.detail, /535/);
  });

  it('refuses to send when STARTTLS is required and the server does not offer it', async () => {
    const before = plain.messages.length;
    const out = await emailProvider.send(message(), config(plain, { username: undefined, password: undefined }), ctx());
    assert.equal(out.ok, false);
    assert.match(out.detail, /STARTTLS/i);
    assert.equal(plain.messages.length, before, 'nothing was sent in clear');
  });

  it('checks the server certificate unless told not to', async () => {
    const out = await emailProvider.send(message(), config(implicit, { security: 'tls', allow_invalid_certificate: false }), ctx());
    assert.equal(out.ok, false);
    assert.match(out.detail, /^TLS with 127\.0\.0\.1:\d+ failed: .*certificate.*\(allow_invalid_certificate accepts such a certificate\)$/);
  });

  it('says so when implicit TLS meets a STARTTLS port', async () => {
    const out = await emailProvider.send(message(), config(starttls, { security: 'tls' }), ctx());
    assert.equal(out.ok, false);
    assert.match(out.detail, /does not speak TLS from the first byte/);
  });

  it('gives up on a server that never greets when the signal fires', async () => {
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    const out = await emailProvider.send(message(), config({ host: '127.0.0.1', port }), ctx(300));
    const took = Date.now() - started;
    assert.ok(took < 3000, `took ${took} ms`);
    assert.equal(out.ok, false);
    assert.equal(out.retry, true);
    assert.match(out.detail, /^no answer from 127\.0\.0\.1:\d+ in time: gave up/);
  });

  it('a closed port fails and may be retried', async () => {
    const gone = await startSmtpReceiver({ mode: 'plain' });
    await gone.close();
    const out = await emailProvider.send(message(), config(gone, { security: 'none' }), ctx());
    assert.equal(out.ok, false);
    assert.equal(out.retry, true);
    assert.equal(out.detail, `cannot connect to 127.0.0.1:${gone.port}: connection refused (ECONNREFUSED)`);
  });
});

describe('desktop', () => {
  const shown: DesktopNotice[] = [];
  const browsers = (n: number) => (notice: DesktopNotice) => {
    shown.push(notice);
    return n;
  };

  it('fails, without retry, when there is nobody to show it to', async () => {
    const out = await desktopProvider.send(message(), {}, ctx(5000, { browsers: () => 0 }));
    assert.deepEqual({ ok: out.ok, detail: out.detail, retry: out.retry, status_code: out.status_code }, { ok: false, detail: 'no desktop app and no open browser window to show it in', retry: false, status_code: null });
  });

  it('shows it in the open browser windows', async () => {
    shown.length = 0;
    const out = await desktopProvider.send(message(), {}, ctx(5000, { browsers: browsers(1) }));
    assert.deepEqual([out.ok, out.detail], [true, 'shown in 1 browser window']);
    // The title is not repeated in the body.
    assert.deepEqual(shown, [{ title: 'web-1 is offline', body: 'No heartbeat for 30 s.\nNode: web-1', severity: 'critical', kind: 'agent.offline' }]);
  });

  it('shows it natively and in browsers; a failing native outlet does not stop the browsers', async () => {
    const both = await desktopProvider.send(message({ kind: 'test', events: [] }), {}, ctx(5000, { native: () => true, browsers: browsers(2) }));
    assert.deepEqual([both.ok, both.detail], [true, 'shown natively and in 2 browser windows']);
    assert.equal(shown.at(-1)!.kind, 'test');
    const nativeOnly = await desktopProvider.send(message(), {}, ctx(5000, { native: () => true, browsers: () => 0 }));
    assert.deepEqual([nativeOnly.ok, nativeOnly.detail], [true, 'shown natively']);
    const broken = await desktopProvider.send(message(), {}, ctx(5000, { native: () => { throw new Error('no dbus'); }, browsers: browsers(1) }));
    assert.deepEqual([broken.ok, broken.detail], [true, 'shown in 1 browser window (native notification failed: no dbus)']);
  });
});
