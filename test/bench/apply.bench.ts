// npm run bench:apply [-- --files 200 --dirs 20 --scripts 5 --repeats 5 --tool-repeats 3]
// One module of files, directories and guarded scripts applied through the API to a real
// agent (the real corral-agent child) into a temporary root: a first apply, then unchanged
// re-applies and plans, each timed from the POST to the finished operation (polled every
// 10 ms). The same end state as a `puppet apply` manifest and an `ansible-playbook -c local`
// playbook, run in the same bench when those programs are on PATH, gives ratios. A
// benchmark, not a test: it prints figures and never fails on speed. It installs nothing.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Operation } from '../../common/schemas/state.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startAcceptedAgent, uploadModule } from '../helpers/fleet.js';
import { startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';
import { ansiblePlaybook, corralModule, makeWorkload, puppetManifest, type Workload } from './apply-workload.js';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '200' },
    dirs: { type: 'string', default: '20' },
    scripts: { type: 'string', default: '5' },
    repeats: { type: 'string', default: '5' },
    'tool-repeats': { type: 'string', default: '3' },
  },
});
const SIZE = { files: Number(values.files), dirs: Number(values.dirs), scripts: Number(values.scripts) };
const REPEATS = Number(values.repeats);
const TOOL_REPEATS = Number(values['tool-repeats']);
const TOTAL = SIZE.files + SIZE.dirs + SIZE.scripts;
const NODE = 'bench-apply';
const TARGETS = { puppet: 5, ansible: 10 };
const FINISHED = ['succeeded', 'failed', 'partial', 'cancelled', 'skipped'];

interface Figures {
  first: number;
  unchanged: number[];
  plan: number[];
  note?: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const min = (xs: number[]) => Math.min(...xs);
const ms = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

function which(program: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function machine(): string {
  const osName = /PRETTY_NAME="?([^"\n]+)/.exec((() => {
    try {
      return readFileSync('/etc/os-release', 'utf8');
    } catch {
      return '';
    }
  })())?.[1] ?? `${os.type()} ${os.release()}`;
  return `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${osName} (kernel ${os.release()}), node ${process.version}`;
}

/** Runs a program, returns its exit code, output and wall time. Never throws on a non-zero exit. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: performance.now() - t0 });
    });
  });
}

// ---------------------------------------------------------------- Corral

async function timedOperation(orch: TestOrchestrator, token: string, kind: 'apply' | 'plan', moduleName: string): Promise<{ ms: number; op: Operation }> {
  const t0 = performance.now();
  const res = await orch.api('POST', `/agents/${NODE}/${kind}`, { token, body: { modules: [moduleName] } });
  if (res.status !== 202) throw new Error(`POST ${kind} answered ${res.status}: ${res.text}`);
  const id = String(res.json.operation_id);
  for (;;) {
    const got = await orch.api('GET', `/state/operations/${id}`, { token });
    if (FINISHED.includes(got.json?.status)) return { ms: performance.now() - t0, op: got.json as Operation };
    if (performance.now() - t0 > 300_000) throw new Error(`${kind} ${id} did not finish in 300 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Where the time of one operation went, from its own timestamps and the agent's per-resource durations. */
function breakdown(label: string, wall: number, op: Operation): string {
  const created = Date.parse(op.created_at);
  const started = op.started_at ? Date.parse(op.started_at) : NaN;
  const finished = op.finished_at ? Date.parse(op.finished_at) : NaN;
  const resources = op.results.reduce((s, r) => s + r.duration_ms, 0);
  const byType = new Map<string, number[]>();
  for (const r of op.results) byType.set(r.type, [...(byType.get(r.type) ?? []), r.duration_ms]);
  const perType = [...byType].map(([type, d]) => `${d.length} ${type} ${(d.reduce((a, b) => a + b, 0) / d.length).toFixed(1)} ms each`).join(', ');
  return `${label.padEnd(20)} wall ${ms(wall)}: created->started ${ms(started - created)}, started->finished ${ms(finished - started)}, outside the operation (HTTP, polling) ${ms(wall - (finished - created))}; agent resource durations sum ${ms(resources)}: ${perType}`;
}

async function benchCorral(w: Workload): Promise<Figures & { rss: string; profile: string[] }> {
  let orch: TestOrchestrator | undefined;
  let agent: AgentProcess | undefined;
  try {
    orch = await startTestOrchestrator({ heartbeatS: 10 });
    const token = await orch.adminToken();
    agent = await startAcceptedAgent(orch, token, NODE, { metricsIntervalS: 60 });
    const text = corralModule('bench-apply', w);
    const up = await uploadModule(orch, token, text);
    console.log(`corral: module ${up.json.name} uploaded, ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB, ${up.json.resource_count} resources`);
    const name = String(up.json.name);
    const profile: string[] = [];

    const first = await timedOperation(orch, token, 'apply', name);
    if (first.op.status !== 'succeeded' || first.op.counts.changed !== TOTAL) {
      throw new Error(`first apply: ${first.op.status}, counts ${JSON.stringify(first.op.counts)}, ${first.op.message ?? ''}`);
    }
    profile.push(breakdown('first apply', first.ms, first.op));
    const unchanged: { ms: number; op: Operation }[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const r = await timedOperation(orch, token, 'apply', name);
      if (r.op.status !== 'succeeded' || r.op.counts.unchanged !== TOTAL) {
        console.log(`\n!!!!! WARNING: corral re-apply ${i + 1} was not all unchanged: ${r.op.status}, counts ${JSON.stringify(r.op.counts)} !!!!!\n`);
      }
      unchanged.push(r);
    }
    const plans: { ms: number; op: Operation }[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const r = await timedOperation(orch, token, 'plan', name);
      if (r.op.status !== 'succeeded' || r.op.counts.would_change !== 0) {
        console.log(`\n!!!!! WARNING: corral plan ${i + 1} on the converged root: ${r.op.status}, counts ${JSON.stringify(r.op.counts)} !!!!!\n`);
      }
      plans.push(r);
    }
    const mid = (xs: { ms: number; op: Operation }[]) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
    const u = mid(unchanged);
    const p = mid(plans);
    profile.push(breakdown('unchanged (median)', u.ms, u.op));
    profile.push(breakdown('plan (median)', p.ms, p.op));
    const rss = `bench process with the in-process orchestrator ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB, corral-agent ${rssMb(agent.child.pid!).toFixed(0)} MB`;
    return { first: first.ms, unchanged: unchanged.map((r) => r.ms), plan: plans.map((r) => r.ms), rss, profile };
  } finally {
    await agent?.dispose();
    await orch?.close();
  }
}

// ---------------------------------------------------------------- Puppet

async function benchPuppet(w: Workload, dir: string, puppet: string): Promise<Figures> {
  mkdirSync(w.root); // puppet creates no missing parents (Corral and ansible do)
  const manifest = path.join(dir, 'bench.pp');
  writeFileSync(manifest, puppetManifest(w));
  // A throwaway configuration, so the machine's own puppet state is untouched.
  const state = ['confdir', 'vardir', 'codedir', 'logdir', 'rundir', 'publicdir', 'ssldir'].flatMap((s) => {
    mkdirSync(path.join(dir, s), { recursive: true });
    return [`--${s}`, path.join(dir, s)];
  });
  const env = { ...process.env, LANG: 'C.UTF-8' };
  const apply = async (label: string, extra: string[], expect: number[]) => {
    const r = await run(puppet, ['apply', '--detailed-exitcodes', '--color=false', ...state, ...extra, manifest], env, dir);
    if (r.code === null || !expect.includes(r.code)) throw new Error(`puppet ${label} exited ${r.code} (expected ${expect.join(' or ')}):\n${r.out.slice(-3000)}`);
    return r.ms;
  };
  // --detailed-exitcodes: 0 nothing changed, 2 changes, 4 / 6 failures.
  const first = await apply('first apply', [], [2]);
  const unchanged: number[] = [];
  for (let i = 0; i < TOOL_REPEATS; i++) unchanged.push(await apply('unchanged apply', [], [0]));
  const plan: number[] = [];
  for (let i = 0; i < TOOL_REPEATS; i++) plan.push(await apply('--noop', ['--noop'], [0]));
  return { first, unchanged, plan };
}

// ---------------------------------------------------------------- Ansible

/** Ansible's configuration and temporary files in the bench's directory, never in ~/.ansible. */
function ansibleEnv(dir: string): NodeJS.ProcessEnv {
  writeFileSync(path.join(dir, 'ansible.cfg'), '[defaults]\n');
  return {
    ...process.env,
    // ansible-playbook makes ~/.ansible whatever the settings say.
    HOME: dir,
    ANSIBLE_CONFIG: path.join(dir, 'ansible.cfg'),
    ANSIBLE_LOCAL_TEMP: path.join(dir, 'tmp-local'),
    ANSIBLE_REMOTE_TEMP: path.join(dir, 'tmp-remote'),
    ANSIBLE_NOCOLOR: '1',
    ANSIBLE_RETRY_FILES_ENABLED: '0',
    ANSIBLE_PYTHON_INTERPRETER: 'auto_silent',
    ANSIBLE_HOST_KEY_CHECKING: '0',
    ANSIBLE_LOCALHOST_WARNING: '0',
    ANSIBLE_INVENTORY_UNPARSED_WARNING: '0',
    LANG: 'C.UTF-8',
  };
}

async function benchAnsible(w: Workload, dir: string, ansible: string): Promise<Figures> {
  const playbook = path.join(dir, 'playbook.yml');
  writeFileSync(playbook, ansiblePlaybook(w));
  const env = ansibleEnv(dir);
  const play = async (label: string, extra: string[]) => {
    const r = await run(ansible, ['-c', 'local', '-i', 'localhost,', ...extra, playbook], env, dir);
    const recap = /localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/.exec(r.out);
    if (r.code !== 0 || !recap || recap[4] !== '0') throw new Error(`ansible-playbook ${label} exited ${r.code}:\n${r.out.slice(-3000)}`);
    return { ms: r.ms, changed: Number(recap[2]) };
  };
  const first = await play('first apply', []);
  if (first.changed === 0) throw new Error('ansible-playbook first apply changed nothing');
  const unchanged: number[] = [];
  for (let i = 0; i < TOOL_REPEATS; i++) {
    const r = await play('unchanged apply', []);
    if (r.changed !== 0) console.log(`\n!!!!! WARNING: ansible unchanged run ${i + 1} reported changed=${r.changed} !!!!!\n`);
    unchanged.push(r.ms);
  }
  const plan: number[] = [];
  for (let i = 0; i < TOOL_REPEATS; i++) plan.push((await play('--check', ['--check'])).ms);
  return { first: first.ms, unchanged, plan };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const top = mkdtempSync(path.join(os.tmpdir(), 'corral-bench-'));
  const cleanup = () => rmSync(top, { recursive: true, force: true });
  const onSignal = () => {
    cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    console.log(`Corral apply benchmark: ${SIZE.dirs} directories, ${SIZE.files} files, ${SIZE.scripts} guarded scripts (${TOTAL} resources) in ${top}`);
    console.log(`machine: ${machine()}`);
    const puppet = which('puppet');
    const ansible = which('ansible-playbook');
    const version = (p: string, args: string[]) => spawnSync(p, args, { encoding: 'utf8' }).stdout.split('\n')[0]?.trim() ?? '?';
    if (puppet) console.log(`puppet: ${puppet} ${version(puppet, ['--version'])}`);
    if (ansible) {
      const env = ansibleEnv(mkdtempSync(path.join(top, 'ansible-version-')));
      console.log(`ansible-playbook: ${ansible} ${spawnSync(ansible, ['--version'], { encoding: 'utf8', env }).stdout.split('\n')[0]?.trim() ?? '?'}`);
    }

    const results: Record<string, Figures> = {};
    const skipped: string[] = [];
    const corral = await benchCorral(makeWorkload(path.join(top, 'corral'), SIZE));
    results.corral = corral;
    console.log(`corral: done (${REPEATS} unchanged re-applies, ${REPEATS} plans)`);

    if (puppet) {
      const dir = path.join(top, 'puppet-state');
      mkdirSync(dir);
      try {
        results.puppet = await benchPuppet(makeWorkload(path.join(top, 'puppet'), SIZE), dir, puppet);
        console.log(`puppet: done (${TOOL_REPEATS} unchanged applies, ${TOOL_REPEATS} --noop)`);
      } catch (err) {
        skipped.push(`puppet: failed, ${(err as Error).message}`);
      }
    } else {
      skipped.push('puppet: skipped, `puppet` is not on PATH (Debian/Ubuntu: apt-get install puppet)');
    }
    if (ansible) {
      const dir = path.join(top, 'ansible-state');
      mkdirSync(dir);
      try {
        results.ansible = await benchAnsible(makeWorkload(path.join(top, 'ansible'), SIZE), dir, ansible);
        console.log(`ansible: done (${TOOL_REPEATS} unchanged runs, ${TOOL_REPEATS} --check)`);
      } catch (err) {
        skipped.push(`ansible: failed, ${(err as Error).message}`);
      }
    } else {
      skipped.push('ansible: skipped, `ansible-playbook` is not on PATH (Debian/Ubuntu: apt-get install ansible; or pipx install ansible-core)');
    }

    console.log(`\n${'tool'.padEnd(10)}${'first apply'.padStart(13)}${'unchanged median'.padStart(19)}${'unchanged min'.padStart(16)}${'plan median'.padStart(14)}${'plan min'.padStart(11)}`);
    const label: Record<string, string> = { corral: 'corral', puppet: 'puppet', ansible: 'ansible' };
    for (const [tool, f] of Object.entries(results)) {
      console.log(`${label[tool]!.padEnd(10)}${ms(f.first).padStart(13)}${ms(median(f.unchanged)).padStart(19)}${ms(min(f.unchanged)).padStart(16)}${ms(median(f.plan)).padStart(14)}${ms(min(f.plan)).padStart(11)}`);
    }
    console.log('(plan: corral plan, puppet apply --noop, ansible-playbook --check, each on the converged root)');
    for (const tool of ['puppet', 'ansible'] as const) {
      const f = results[tool];
      if (!f) continue;
      const ratio = median(f.unchanged) / median(corral.unchanged);
      const planRatio = median(f.plan) / median(corral.plan);
      const target = TARGETS[tool];
      console.log(
        `${tool} unchanged / corral unchanged: ${ratio.toFixed(1)}x (target >= ${target}x: ${ratio >= target ? 'met' : 'MISSED'}); first apply ${(f.first / corral.first).toFixed(1)}x; plan ${planRatio.toFixed(1)}x`,
      );
    }
    for (const s of skipped) console.log(s);
    console.log(`\nwhere corral's time goes:\n  ${corral.profile.join('\n  ')}`);
    console.log(`RSS at the end: ${corral.rss}`);
  } finally {
    cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench:apply failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
