import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, startServe, type ServeChild } from '../helpers/child.js';
import { makeKey } from '../helpers/keys.js';
import { makeApi, removeDir, tempDir } from '../helpers/orchestrator.js';

describe('structured logs', () => {
  let dir: string;
  let serve: ServeChild | undefined;
  const adminKey = makeKey('admin@logging');

  before(() => {
    dir = tempDir('corral-logging-');
    writeFileSync(path.join(dir, 'admin.pub'), adminKey.publicLine + '\n');
  });
  after(async () => {
    await serve?.kill();
    removeDir(dir);
  });

  it('are JSON lines and never contain a token, a signature or a setup token', async () => {
    const args = ['--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', path.join(dir, 'data'), '--log-level', 'trace'];
    serve = await startServe(args, cleanEnv());
    const setupToken = /#\/setup\?token=(\S+)/.exec(serve.output())?.[1];
    assert.ok(setupToken, 'a fresh data directory prints a setup link');
    const api = makeApi(serve.url);
    await api('POST', '/setup', { body: { token: setupToken, public_key: adminKey.publicLine } });

    const challenge = await api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
    const signature = adminKey.sign(challenge.json.message);
    const verify = await api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: challenge.json.nonce, signature } });
    assert.equal(verify.status, 200, verify.text);
    const token: string = verify.json.token;
    // A refused request, a request with the token in the query string (as terminal streams will), and an unknown route.
    assert.equal((await api('POST', '/operators', { token, body: { operator_id: 'x', role: 'boss', public_keys: [] } })).status, 400);
    assert.equal((await api('GET', `/operators?token=${token}`, { token })).status, 400);
    assert.equal((await api('GET', '/nope', { token: 'not-a-real-token' })).status, 404);
    // A terminal stream ticket in the query string, refused before the upgrade.
    const ticket = 'TicketThatMustNotBeLogged0123456789abcdefgh';
    const stream = await api('GET', `/terminal/session/00000000-0000-4000-8000-000000000000/stream?ticket=${ticket}`, {
      headers: { connection: 'upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    assert.equal(stream.status, 401, stream.text);
    await serve.kill();

    const out = serve.output();
    const lines = out.split('\n').filter((l) => l.startsWith('{'));
    assert.ok(lines.length >= 4, 'request lines were logged at trace level');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.ok(lines.some((l) => JSON.parse(l).reqId), 'lines carry the request id');
    assert.ok(!out.includes(token), 'the session token is not in the log');
    assert.ok(!out.includes(signature), 'the signature is not in the log');
    assert.ok(!out.includes('not-a-real-token'), 'a presented bearer token is not in the log');
    assert.ok(!out.includes(ticket), 'a presented stream ticket is not in the log');
    assert.ok(out.includes('ticket=[redacted]'), 'the stream request is logged, without its ticket');
    const afterBanner = out.slice(out.indexOf(setupToken) + setupToken.length);
    assert.ok(!afterBanner.includes(setupToken), 'the setup token appears only in the banner printed for the admin');
  });
});
