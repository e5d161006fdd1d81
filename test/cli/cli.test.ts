// The real `corral` CLI as a child process, against real orchestrators, with
// keys made by the real ssh-keygen and, for one test, a real ssh-agent.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, runCli, type RunResult } from '../helpers/child.js';
import { keyFromFile, sshKeygen, sshKeygenSign, type SshKeyFile } from '../helpers/keys.js';
import { removeDir, startTestOrchestrator, tempDir, type TestOrchestrator } from '../helpers/orchestrator.js';

let home: string;
let adminKey: SshKeyFile;
let orch: TestOrchestrator;

before(async () => {
  home = tempDir('corral-cli-');
  adminKey = sshKeygen(home, 'k');
  // The first admin's key is the contents of k.pub, as `corral serve --admin-key k.pub` would read it.
  assert.equal(readFileSync(adminKey.file + '.pub', 'utf8').trim(), adminKey.publicLine);
  orch = await startTestOrchestrator({ admin: keyFromFile(adminKey.file) });
  assert.deepEqual((await adminApi('GET', '/operators/admin')).json.public_keys, [adminKey.publicLine]);
});
after(async () => {
  await orch.close();
  removeDir(home);
});

/** An environment whose config dir and HOME are private to one flow; no ssh-agent unless given. */
function envFor(name: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const configDir = path.join(home, `config-${name}`);
  return cleanEnv({ CORRAL_CONFIG_DIR: configDir, HOME: home, XDG_CONFIG_HOME: undefined, SSH_AUTH_SOCK: undefined, ...extra });
}

function ok(r: RunResult, what: string): void {
  assert.equal(r.code, 0, `${what} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
}

async function adminApi(method: string, p: string, body?: unknown) {
  return orch.api(method, p, { token: await orch.adminToken(), body });
}

// The groups are independent (own config directories, own operators), so they run side by side.
describe('corral CLI', { concurrency: true }, () => {
  describe('ssh-keygen keys', { concurrency: false }, () => {
    it('a challenge signed by ssh-keygen -Y sign -n corral is accepted by /auth/verify', async () => {
      const c = await orch.api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
      const signature = sshKeygenSign(adminKey.file, c.json.message, home);
      const v = await orch.api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.json.nonce, signature } });
      assert.equal(v.status, 200, v.text);
    });
  });

  describe('corral login, whoami, api, operators, audit, logout over HTTP', { concurrency: false }, () => {
    const env = () => envFor('http');
    const credentials = () => path.join(home, 'config-http', 'credentials.json');

    it('corral login signs in with the key file and stores the token 0600', async () => {
      const r = await runCli(['login', '--url', orch.url, '--operator', 'admin', '--key', adminKey.file], env());
      ok(r, 'login');
      assert.match(r.stdout, new RegExp(`Signed in to ${orch.url.replace(/\./g, '\\.')} as admin \\(admin\\) with ${adminKey.file}`));
      const stat = statSync(credentials());
      assert.equal(stat.mode & 0o777, 0o600);
      const saved = JSON.parse(readFileSync(credentials(), 'utf8'));
      assert.equal(saved.url, orch.url);
      assert.equal(saved.operator_id, 'admin');
      const me = await orch.api('GET', '/auth/session', { token: saved.token });
      assert.equal(me.status, 200, 'the stored token is a live session');
      assert.equal(me.json.operator.operator_id, 'admin');
    });

    it('corral whoami shows the session', async () => {
      const r = await runCli(['whoami'], env());
      ok(r, 'whoami');
      assert.match(r.stdout, /^admin \(Administrator\), role admin, key SHA256:\S+, session until \d{4}-/);
    });

    it('corral api GET /status prints the JSON answer', async () => {
      const r = await runCli(['api', 'GET', '/status'], env());
      ok(r, 'api GET /status');
      const status = JSON.parse(r.stdout);
      assert.equal(status.status, 'ok');
      assert.equal(status.api_version, '0.0.13');
      const inc = await runCli(['api', '-i', 'GET', '/audit/retention'], env());
      ok(inc, 'api -i');
      assert.match(inc.stdout, /^HTTP 200 application\/json/);
    });

    it('corral api POST /operators creates an operator; an error answer exits 1 with the problem', async () => {
      const bob = sshKeygen(home, 'bob');
      const body = JSON.stringify({ operator_id: 'bob', role: 'viewer', public_keys: [bob.publicLine] });
      const r = await runCli(['api', 'POST', '/operators', body], env());
      ok(r, 'api POST /operators');
      assert.equal(JSON.parse(r.stdout).operator_id, 'bob');
      assert.equal((await adminApi('GET', '/operators/bob')).json.role, 'viewer');

      const again = await runCli(['api', 'POST', '/operators', body], env());
      assert.equal(again.code, 1);
      assert.match(again.stderr, /409 Conflict: .*\[operator-exists\]/);
      assert.equal(JSON.parse(again.stdout).code, 'operator-exists', 'the problem body is printed too');

      const badJson = await runCli(['api', 'POST', '/operators', '{nope'], env());
      assert.equal(badJson.code, 2);
      assert.match(badJson.stderr, /not valid JSON/);
    });

    it('corral operators add, list, get and remove', async () => {
      const carol = sshKeygen(home, 'carol');
      const add = await runCli(['operators', 'add', 'carol', '--role', 'operator', '--key', carol.file + '.pub', '--name', 'Carol C'], env());
      ok(add, 'operators add');
      assert.match(add.stdout, /Added carol \(operator\) with 1 key/);

      const list = await runCli(['operators', 'list'], env());
      ok(list, 'operators list');
      const lines = list.stdout.trim().split('\n');
      assert.match(lines[0]!, /^ID\s+ROLE\s+KEYS\s+CREATED\s+NAME$/);
      assert.ok(lines.some((l) => /^carol\s+operator\s+1\s+.*Carol C$/.test(l)), list.stdout);
      assert.ok(lines.some((l) => /^admin\s+admin\s/.test(l)));

      const get = await runCli(['operators', 'get', 'carol'], env());
      ok(get, 'operators get');
      assert.deepEqual(JSON.parse(get.stdout).public_keys, [carol.publicLine]);

      const remove = await runCli(['operators', 'remove', 'carol'], env());
      ok(remove, 'operators remove');
      assert.match(remove.stdout, /Removed carol/);
      assert.equal((await adminApi('GET', '/operators/carol')).status, 404);

      const last = await runCli(['operators', 'remove', 'admin'], env());
      assert.equal(last.code, 1);
      assert.match(last.stderr, /409 .*last-admin/);
    });

    it('corral audit list and verify', async () => {
      const list = await runCli(['audit', 'list', '--action', 'operator.*'], env());
      ok(list, 'audit list');
      const lines = list.stdout.trim().split('\n');
      assert.match(lines[0]!, /^ID\s+TIME\s+ACTOR\s+ACTION\s+TARGET\s+OUTCOME$/);
      assert.ok(lines.some((l) => /\badmin\s+operator\.create\s+carol\s+success$/.test(l)), list.stdout);
      assert.ok(lines.some((l) => /\badmin\s+operator\.remove\s+carol\s+success$/.test(l)), list.stdout);
      assert.ok(lines.slice(1).every((l) => /\soperator\./.test(l)), 'only operator.* actions');

      const json = await runCli(['audit', 'list', '--json', '--limit', '2'], env());
      ok(json, 'audit list --json');
      assert.equal(JSON.parse(json.stdout).items.length, 2);

      const verify = await runCli(['audit', 'verify'], env());
      ok(verify, 'audit verify');
      assert.match(verify.stdout, /Audit chain intact: \d+ events checked/);
    });

    it('corral logout ends the session and forgets the token', async () => {
      const token = JSON.parse(readFileSync(credentials(), 'utf8')).token;
      const r = await runCli(['logout'], env());
      ok(r, 'logout');
      assert.match(r.stdout, /Signed out of/);
      assert.ok(!existsSync(credentials()));
      assert.equal((await orch.api('GET', '/auth/session', { token })).status, 401, 'the session ended on the server');
      const who = await runCli(['whoami'], env());
      assert.equal(who.code, 1);
      assert.match(who.stderr, /not signed in/);
    });

    it('refuses a key the operator does not have', async () => {
      const stranger = sshKeygen(home, 'stranger');
      const r = await runCli(['login', '--url', orch.url, '--operator', 'admin', '--key', stranger.file], envFor('stranger'));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /401 .*signature-invalid/);
      assert.ok(!existsSync(path.join(home, 'config-stranger', 'credentials.json')));
    });
  });

  describe('corral login over TLS', { concurrency: false }, () => {
    let secure: TestOrchestrator;
    before(async () => {
      secure = await startTestOrchestrator({ http: false, admin: keyFromFile(adminKey.file) });
    });
    after(() => secure.close());

    async function challengeCount(): Promise<number> {
      const res = await secure.api('GET', '/audit?action=auth.challenge&limit=1000', { token: await secure.adminToken() });
      return res.json.items.length;
    }

    it('works with the right --fingerprint (in any spelling), and later commands reuse it', async () => {
      // As ssh-keygen-style "SHA256:" + lower-case hex without colons; stored normalised.
      const spelling = 'SHA256:' + secure.handle.tlsFingerprint!.replace(/:/g, '').toLowerCase();
      const r = await runCli(['login', '--url', secure.url, '--fingerprint', spelling, '--key', adminKey.file], envFor('tls'));
      ok(r, 'login over TLS');
      assert.match(r.stdout, /Signed in to https:\/\/127\.0\.0\.1:\d+ as admin/);
      const saved = JSON.parse(readFileSync(path.join(home, 'config-tls', 'credentials.json'), 'utf8'));
      assert.equal(saved.fingerprint, secure.handle.tlsFingerprint);
      const status = await runCli(['api', 'GET', '/status'], envFor('tls'));
      ok(status, 'api over TLS');
      assert.equal(JSON.parse(status.stdout).tls_fingerprint, secure.handle.tlsFingerprint);
    });

    it('refuses a wrong fingerprint before anything is sent', async () => {
      const before = await challengeCount();
      const wrong = secure.handle.tlsFingerprint!.replace(/^../, (h) => (h === 'AA' ? 'BB' : 'AA'));
      const r = await runCli(['login', '--url', secure.url, '--fingerprint', wrong, '--key', adminKey.file], envFor('tls-wrong'));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /fingerprint is .*but .* was expected; refusing/);
      assert.equal(await challengeCount(), before, 'no challenge reached the server');
      assert.ok(!existsSync(path.join(home, 'config-tls-wrong', 'credentials.json')));
    });

    it('without --fingerprint and no terminal to ask, shows the fingerprint and sends nothing', async () => {
      const before = await challengeCount();
      const r = await runCli(['login', '--url', secure.url, '--key', adminKey.file], envFor('tls-none'));
      assert.equal(r.code, 1);
      assert.ok(r.stderr.includes(secure.handle.tlsFingerprint!), r.stderr);
      assert.equal(await challengeCount(), before);
    });
  });

  describe('corral login with an encrypted key', { concurrency: false }, () => {
    let enc: SshKeyFile;
    before(async () => {
      enc = sshKeygen(home, 'kenc', 'secret');
      assert.equal((await adminApi('POST', '/operators', { operator_id: 'enc', role: 'viewer', public_keys: [enc.publicLine] })).status, 201);
    });

    it('uses CORRAL_KEY_PASSPHRASE', async () => {
      const r = await runCli(['login', '--url', orch.url, '--operator', 'enc', '--key', enc.file], envFor('enc', { CORRAL_KEY_PASSPHRASE: 'secret' }));
      ok(r, 'login with an encrypted key');
      assert.match(r.stdout, /as enc \(viewer\)/);
    });

    it('says the key is encrypted when there is no passphrase and no terminal', async () => {
      const r = await runCli(['login', '--url', orch.url, '--operator', 'enc', '--key', enc.file], envFor('enc-none'));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /encrypted/);
    });

    it('fails with a wrong passphrase', async () => {
      const r = await runCli(['login', '--url', orch.url, '--operator', 'enc', '--key', enc.file], envFor('enc-wrong', { CORRAL_KEY_PASSPHRASE: 'wrong' }));
      assert.equal(r.code, 1);
      assert.ok(!existsSync(path.join(home, 'config-enc-wrong', 'credentials.json')));
    });
  });

  describe('corral login through ssh-agent', { concurrency: false }, () => {
    let agent: ChildProcess | undefined;
    let socket: string;
    let agentDir: string;

    before(async () => {
      agentDir = tempDir('corral-agent-');
      socket = path.join(agentDir, 'agent.sock');
      agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
      for (let i = 0; i < 200 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(existsSync(socket), 'ssh-agent made its socket');
    });
    after(async () => {
      if (agent && agent.exitCode === null) {
        const exited = new Promise((r) => agent!.once('exit', r));
        agent.kill('SIGTERM');
        await exited;
      }
      removeDir(agentDir);
    });

    it('signs with the agent when no --key is given', async () => {
      const keyDir = path.join(agentDir, 'keys');
      mkdirSync(keyDir);
      const k = sshKeygen(keyDir, 'agent-key');
      assert.equal((await adminApi('POST', '/operators', { operator_id: 'agentuser', role: 'operator', public_keys: [k.publicLine] })).status, 201);
      const add = spawnSync('ssh-add', [k.file], { env: { ...process.env, SSH_AUTH_SOCK: socket }, encoding: 'utf8' });
      assert.equal(add.status, 0, add.stderr);
      // Only the agent holds the key now: nothing on disk could sign.
      rmSync(k.file);
      const r = await runCli(['login', '--url', orch.url, '--operator', 'agentuser'], envFor('agent', { SSH_AUTH_SOCK: socket }));
      ok(r, 'login through ssh-agent');
      assert.match(r.stdout, /as agentuser \(operator\) with ssh-agent/);
    });
  });

  describe('help and usage', { concurrency: false }, () => {
    it('prints usage for corral --help, help CMD and CMD --help', async () => {
      const env = envFor('help');
      const [main, helpLogin, loginHelp, operatorsHelp, apiHelp] = await Promise.all([
        runCli(['--help'], env),
        runCli(['help', 'login'], env),
        runCli(['login', '--help'], env),
        runCli(['operators', '--help'], env),
        runCli(['api', '--help'], env),
      ]);
      for (const [r, what] of [[main, '--help'], [helpLogin, 'help login'], [loginHelp, 'login --help'], [operatorsHelp, 'operators --help'], [apiHelp, 'api --help']] as const) {
        ok(r, `corral ${what}`);
      }
      assert.match(main.stdout, /^Usage: corral <command>/);
      for (const cmd of ['serve', 'login', 'logout', 'whoami', 'api', 'operators', 'audit']) assert.match(main.stdout, new RegExp(`^  ${cmd}\\s`, 'm'));
      assert.match(helpLogin.stdout, /^Usage: corral login /);
      assert.equal(loginHelp.stdout, helpLogin.stdout);
      assert.match(loginHelp.stdout, /--fingerprint/);
      assert.match(operatorsHelp.stdout, /^Usage: corral operators <command>/);
      assert.match(apiHelp.stdout, /^Usage: corral api METHOD PATH/);
    });

    it('exits 2 on an unknown command, help topic or option', async () => {
      const env = envFor('help');
      const [unknown, helpUnknown, badOption] = await Promise.all([
        runCli(['frobnicate'], env),
        runCli(['help', 'frobnicate'], env),
        runCli(['login', '--no-such-option'], env),
      ]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command "frobnicate"/);
      assert.equal(helpUnknown.code, 2);
      assert.equal(badOption.code, 2);
      assert.match(badOption.stderr, /no-such-option/);
    });
  });
});
