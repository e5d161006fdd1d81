// Channel config validation (messages that name the field), the plain/credential split
// with its PUT semantics, and message templates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelType } from '../../common/schemas/channels.js';
import type { FleetEvent } from '../../common/schemas/events.js';
import { mergeForUpdate, publicConfig, splitConfig, validateChannelConfig } from '../../orchestrator/services/channels/channel-config.js';
import { checkTemplate, eventTemplateFields, renderMessage } from '../../orchestrator/services/channels/message-template.js';

const byField = (errors: { field: string; message: string }[]) => Object.fromEntries(errors.map((e) => [e.field, e.message]));

const GOOD: Record<ChannelType, Record<string, unknown>> = {
  webhook: { url: 'https://hooks.example.com/corral', secret: 'a-long-enough-secret', headers: { Authorization: 'Bearer x' } },
  slack: { webhook_url: 'https://hooks.slack.com/services/T/B/X', channel: '#ops', username: 'corral' },
  discord: { webhook_url: 'https://discord.com/api/webhooks/1/abc', username: 'corral' },
  ntfy: { topic: 'corral-alerts', server_url: 'https://ntfy.example.com/', token: 'tk_123' },
  email: { host: 'smtp.example.com', port: 587, security: 'starttls', username: 'u', password: 'p', from: 'corral@example.com', to: ['ops@example.com'] },
  desktop: {},
};

describe('validateChannelConfig', () => {
  for (const [type, config] of Object.entries(GOOD)) {
    it(`accepts a good ${type} config`, () => assert.deepEqual(validateChannelConfig(type as ChannelType, config), []));
  }

  it('names a missing required field', () => {
    assert.deepEqual(byField(validateChannelConfig('ntfy', {})), { 'config.topic': 'is required' });
    const email = byField(validateChannelConfig('email', { host: 'smtp.example.com' }));
    for (const f of ['port', 'security', 'from', 'to']) assert.equal(email[`config.${f}`], 'is required', f);
  });

  it('names an unknown field and lists the known ones', () => {
    const errors = validateChannelConfig('webhook', { url: 'https://x.example.com/', foo: 1 });
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.field, 'config.foo');
    assert.match(errors[0]!.message, /^is not a field of a webhook channel \(its fields: url, secret, headers\)$/);
    assert.match(byField(validateChannelConfig('desktop', { sound: true }))['config.sound']!, /no settings/);
  });

  it('says a bad URL is not an http(s) URL, beyond the schema prefix check', () => {
    assert.equal(byField(validateChannelConfig('webhook', { url: 'ftp://files.example.com/x' }))['config.url'], 'must be an http(s) URL');
    assert.equal(byField(validateChannelConfig('webhook', { url: '' }))['config.url'], 'must be an http(s) URL');
    assert.equal(byField(validateChannelConfig('webhook', { url: 'http://exa mple.com/' }))['config.url'], 'must not contain spaces or line breaks');
    assert.equal(byField(validateChannelConfig('slack', { webhook_url: 'https://[not-a-host/' }))['config.webhook_url'], 'must be an http(s) URL');
    // Credentials in a webhook URL (basic auth) are allowed.
    assert.deepEqual(validateChannelConfig('webhook', { url: 'https://user:pw@hooks.example.com/' }), []);
  });

  it('explains wrong types, ranges, enums and formats in words', () => {
    const e = byField(validateChannelConfig('email', { host: 'smtp://mail.example.com:587', port: '587', security: 'ssl', from: 'corral', to: [] }));
    assert.equal(e['config.port'], 'must be a whole number');
    assert.equal(e['config.security'], 'must be one of: starttls, tls, none');
    assert.equal(e['config.from'], 'must be an email address such as ops@example.com');
    assert.equal(e['config.to'], 'must list at least one');
    assert.match(e['config.host']!, /host name or IP address/);
    assert.equal(byField(validateChannelConfig('email', { ...GOOD.email, port: 70000 }))['config.port'], 'must be at most 65535');
    assert.equal(byField(validateChannelConfig('email', { ...GOOD.email, to: ['ops@example.com', 'nobody'] }))['config.to[1]'], 'must be an email address such as ops@example.com');
    assert.equal(byField(validateChannelConfig('email', { ...GOOD.email, allow_invalid_certificate: 'yes' }))['config.allow_invalid_certificate'], 'must be true or false');
    assert.equal(byField(validateChannelConfig('webhook', { url: 'https://x.example.com/', secret: 'short' }))['config.secret'], 'must be at least 16 characters');
    assert.match(byField(validateChannelConfig('ntfy', { topic: 'has space' }))['config.topic']!, /letters, digits/);
    assert.equal(byField(validateChannelConfig('email', { ...GOOD.email, username: undefined }))['config.username'], 'is required when a password is set');
  });

  it('checks webhook header names and refuses the ones Corral sets', () => {
    const e = byField(validateChannelConfig('webhook', { url: 'https://x.example.com/', headers: { 'X-Corral-Signature': 'x', 'Content-Type': 'text/plain', 'bad name': 'x', 'X-Ok': 'a\r\nInjected: 1', 'X-Num': 5 } }));
    assert.match(e['config.headers.X-Corral-Signature']!, /set by Corral/);
    assert.match(e['config.headers.Content-Type']!, /set by Corral/);
    assert.match(e['config.headers.bad name']!, /not a valid header name/);
    assert.equal(e['config.headers.X-Ok'], 'must not contain line breaks');
    assert.equal(e['config.headers.X-Num'], 'must be a string');
  });

  it('uses the field prefix it is given, and names the type when the type is unknown', () => {
    assert.deepEqual(validateChannelConfig('ntfy', {}, 'body.config'), [{ field: 'body.config.topic', message: 'is required' }]);
    assert.deepEqual(validateChannelConfig('ntfy', 'topic', 'body.config'), [{ field: 'body.config', message: 'must be an object' }]);
    assert.deepEqual(validateChannelConfig('pager' as ChannelType, {}, 'body.config'), [{ field: 'body.type', message: 'must be one of: webhook, slack, discord, ntfy, email, desktop' }]);
  });
});

describe('credentials: split, merge on PUT, read back', () => {
  it('splits the credential fields off', () => {
    assert.deepEqual(splitConfig('webhook', GOOD.webhook), {
      plain: { url: 'https://hooks.example.com/corral' },
      secret: { secret: 'a-long-enough-secret', headers: { Authorization: 'Bearer x' } },
    });
    assert.deepEqual(splitConfig('slack', GOOD.slack), { plain: { channel: '#ops', username: 'corral' }, secret: { webhook_url: 'https://hooks.slack.com/services/T/B/X' } });
    assert.deepEqual(splitConfig('desktop', {}), { plain: {}, secret: {} });
  });

  it('reads credentials back as {set: true}, never their value', () => {
    const { plain, secret } = splitConfig('email', GOOD.email);
    const shown = publicConfig('email', plain, secret);
    assert.deepEqual(shown.password, { set: true });
    assert.equal(shown.host, 'smtp.example.com');
    assert.ok(!JSON.stringify(shown).includes('"p"'));
    // No stored value: no marker at all. A credential misfiled among plain fields stays hidden.
    assert.deepEqual(publicConfig('ntfy', { topic: 't', token: 'leaked' }, {}), { topic: 't' });
  });

  it('keeps a credential left out or sent as {set: true}, clears it on null, replaces it on a value', () => {
    const stored = splitConfig('webhook', GOOD.webhook);
    assert.deepEqual(mergeForUpdate('webhook', stored, { url: 'https://new.example.com/' }), {
      url: 'https://new.example.com/',
      secret: 'a-long-enough-secret',
      headers: { Authorization: 'Bearer x' },
    });
    assert.deepEqual(mergeForUpdate('webhook', stored, { url: 'https://new.example.com/', secret: { set: true }, headers: null }), {
      url: 'https://new.example.com/',
      secret: 'a-long-enough-secret',
    });
    assert.deepEqual(mergeForUpdate('webhook', stored, { url: 'https://new.example.com/', secret: 'another-long-secret!' }).secret, 'another-long-secret!');
  });

  it('takes plain fields wholesale from the PUT', () => {
    const stored = splitConfig('slack', GOOD.slack);
    assert.deepEqual(mergeForUpdate('slack', stored, { username: 'bot' }), { username: 'bot', webhook_url: 'https://hooks.slack.com/services/T/B/X' });
  });

  it('leaves a required credential missing when there is nothing stored to keep, so validation says so', () => {
    const merged = mergeForUpdate('discord', { plain: {}, secret: {} }, { webhook_url: { set: true } });
    assert.deepEqual(merged, {});
    assert.deepEqual(validateChannelConfig('discord', merged), [{ field: 'config.webhook_url', message: 'is required' }]);
    // {set: true} on a plain field is not a marker: it is a wrong value.
    assert.equal(byField(validateChannelConfig('slack', mergeForUpdate('slack', splitConfig('slack', GOOD.slack), { channel: { set: true } })))['config.channel'], 'must be a string');
  });
});

describe('message templates', () => {
  const event: FleetEvent = {
    id: '00000000-0000-4000-8000-000000000001',
    kind: 'agent.offline',
    severity: 'critical',
    title: 'web-1 is offline',
    body: 'No heartbeat for 30 s.',
    node_id: 'web-1',
    operation_id: null,
    window_id: null,
    actor: null,
    created_at: '2025-01-02T03:04:05.000Z',
  };
  const fields = eventTemplateFields(event, { link: 'https://corral.example.com/#/agents/web-1', channel: 'ops' });

  it('renders placeholders with or without spaces', () => {
    assert.equal(renderMessage('[{{severity}}] {{ title }} on {{  node_id  }} ({{ kind }}, {{ channel }})', fields), '[critical] web-1 is offline on web-1 (agent.offline, ops)');
    assert.equal(renderMessage('{{ operation_id }}|{{ time }}', fields), '|2025-01-02T03:04:05.000Z');
  });

  it('uses the default text when there is no template', () => {
    assert.equal(renderMessage(null, fields), 'web-1 is offline\nNo heartbeat for 30 s.\nNode: web-1\nhttps://corral.example.com/#/agents/web-1');
    assert.equal(renderMessage(null, { ...fields, node_id: '', link: '' }), 'web-1 is offline\nNo heartbeat for 30 s.');
    // A batch: the queue builds the fields itself.
    assert.equal(renderMessage(null, { ...fields, title: '2 events', body: '- a\n- b', node_id: '', link: '' }), '2 events\n- a\n- b');
  });

  it('accepts a good template and names unknown placeholders', () => {
    assert.deepEqual(checkTemplate('{{ title }}\n{{body}}\n{{ link }}'), []);
    const errors = checkTemplate('{{ title }}\n{{ host }} {{ host }} {{ }}');
    assert.equal(errors.length, 2);
    assert.deepEqual(errors[0], { field: 'template', message: 'unknown placeholder {{ host }}; known: kind, severity, title, body, node_id, operation_id, time, link, channel', line: 2 });
    assert.match(errors[1]!.message, /^empty placeholder/);
  });

  it('finds an unclosed {{ and says where', () => {
    const errors = checkTemplate('ok {{ title }}\nthen {{ body', 'body.template');
    assert.deepEqual(errors, [{ field: 'body.template', message: '"{{" at line 2, column 6 is never closed with "}}"', line: 2 }]);
    assert.equal(checkTemplate('{{ a {{ title }}').length, 1);
  });
});
