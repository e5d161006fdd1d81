// `corral agents ...` as an operator uses it, against a real orchestrator and a real agent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { cleanEnv, runCli } from '../helpers/child.js';
import { startTestOrchestrator, tempDir, removeDir, type TestOrchestrator } from '../helpers/orchestrator.js';

let orch: TestOrchestrator;
let agent: AgentProcess;
let env: NodeJS.ProcessEnv;
let home: string;

before(async () => {
  orch = await startTestOrchestrator();
  home = tempDir('corral-cli-agents-');
  env = cleanEnv({ HOME: home, CORRAL_CONFIG_DIR: home, CORRAL_URL: orch.url, CORRAL_TOKEN: (await orch.loginAs('operator')).token });
  agent = await startAgentProcess({ orchestratorUrl: orch.url, nodeId: 'cli-box' });
  const deadline = Date.now() + 20_000;
  while ((await orch.api('GET', '/agents/cli-box', { token: await orch.adminToken() })).status !== 200) {
    if (Date.now() > deadline) throw new Error('agent did not enroll');
    await new Promise((r) => setTimeout(r, 100));
  }
});
after(async () => {
  await agent.dispose();
  await orch.close();
  removeDir(home);
});

describe('corral agents', () => {
  it('lists a pending agent with its key fingerprint to compare', async () => {
    const res = await runCli(['agents', 'list'], env);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^NODE\s+STATUS\s+ONLINE/m);
    assert.match(res.stdout, /cli-box\s+pending\s+yes/);
    assert.ok(res.stdout.includes(agent.keyFingerprint), res.stdout);
  });

  it('accepts, tags, untags, retags, filters by selector and rejects', async () => {
    assert.match((await runCli(['agents', 'accept', 'cli-box'], env)).stdout, /cli-box: accepted/);
    assert.deepEqual(JSON.parse((await runCli(['agents', 'tag', 'cli-box', 'role=web', 'env=prod'], env)).stdout), { env: 'prod', role: 'web' });
    assert.deepEqual(JSON.parse((await runCli(['agents', 'untag', 'cli-box', 'env'], env)).stdout), { role: 'web' });
    const selected = await runCli(['agents', 'list', '--selector', 'role=web', '--json'], env);
    assert.deepEqual(JSON.parse(selected.stdout).map((a: { node_id: string }) => a.node_id), ['cli-box']);
    assert.deepEqual(JSON.parse((await runCli(['agents', 'list', '--selector', 'role=db', '--json'], env)).stdout), []);
    assert.deepEqual(JSON.parse((await runCli(['agents', 'retag', 'cli-box', 'tier=edge'], env)).stdout), { tier: 'edge' });
    const bad = await runCli(['agents', 'tag', 'cli-box', 'novalue'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /KEY=VALUE/);
    const mixed = await runCli(['agents', 'reject', 'cli-box', 'nobody'], env);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stdout, /cli-box: rejected/);
    assert.match(mixed.stderr, /nobody: 404 .*agent-not-found/);
  });

  it('explains a bad selector with its position', async () => {
    const res = await runCli(['agents', 'list', '--selector', 'env in (prod'], env);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /invalid-selector/);
    assert.match(res.stderr, /position \d+/);
  });

  it('discovers only the targets given, and has help', async () => {
    const res = await runCli(['agents', 'discover', '--wait', '200', '--target', '127.0.0.1'], env);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /probed 127\.0\.0\.1; \d+ answered/);
    const help = await runCli(['agents', '--help'], env);
    assert.match(help.stdout, /Usage: corral agents <command>/);
  });
});
