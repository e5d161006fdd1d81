import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, resolveAgentConfig } from '../../agent/config.js';
import { defaultStateDir } from '../../agent/state-dir.js';
import { removeDir, tempDir } from './support/temp.js';

const FP_A = 'AA:'.repeat(31) + 'AA';
const FP_B = 'bb'.repeat(32);
const FP_B_NORMAL = 'BB:'.repeat(31) + 'BB';
const FP_C = 'SHA256:' + 'CC:'.repeat(31) + 'CC';

describe('agent settings', () => {
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => removeDir(dir));

  function stateDir(name: string, yaml?: string): string {
    const d = path.join(dir, name);
    mkdirSync(d, { recursive: true, mode: 0o700 });
    if (yaml !== undefined) writeFileSync(path.join(d, 'agent.yaml'), yaml);
    return d;
  }

  it('has sensible defaults', () => {
    const c = resolveAgentConfig({ stateDir: stateDir('defaults') }, { env: {}, hostname: 'Web-01.Example.COM' });
    assert.equal(c.orchestrator, null);
    assert.equal(c.fingerprint, null);
    assert.equal(c.nodeId, 'web-01.example.com');
    assert.equal(c.metricsIntervalS, 10);
    assert.equal(c.discoveryPort, 7391);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.configFile, null);
  });

  it('reads <state-dir>/agent.yaml, then environment over it, then flags over both', () => {
    const sd = stateDir(
      'layers',
      ['orchestrator: https://file.example:7390', `fingerprint: "${FP_A}"`, 'node_id: from-file', 'metrics_interval: 30', 'discovery_port: 9000', 'log_level: warn', ''].join('\n'),
    );
    const fileOnly = resolveAgentConfig({ stateDir: sd }, { env: {} });
    assert.equal(fileOnly.orchestrator, 'https://file.example:7390');
    assert.equal(fileOnly.fingerprint, FP_A);
    assert.equal(fileOnly.nodeId, 'from-file');
    assert.equal(fileOnly.metricsIntervalS, 30);
    assert.equal(fileOnly.discoveryPort, 9000);
    assert.equal(fileOnly.logLevel, 'warn');
    assert.equal(fileOnly.configFile, path.join(sd, 'agent.yaml'));

    const env = {
      CORRAL_AGENT_ORCHESTRATOR: 'https://env.example:7390/',
      CORRAL_AGENT_FINGERPRINT: FP_B,
      CORRAL_AGENT_NODE_ID: 'from-env',
      CORRAL_AGENT_METRICS_INTERVAL: '20',
      CORRAL_AGENT_DISCOVERY_PORT: '9001',
      CORRAL_AGENT_LOG_LEVEL: 'debug',
    };
    const withEnv = resolveAgentConfig({ stateDir: sd }, { env });
    assert.equal(withEnv.orchestrator, 'https://env.example:7390');
    assert.equal(withEnv.fingerprint, FP_B_NORMAL);
    assert.equal(withEnv.nodeId, 'from-env');
    assert.equal(withEnv.metricsIntervalS, 20);
    assert.equal(withEnv.discoveryPort, 9001);
    assert.equal(withEnv.logLevel, 'debug');

    const withFlags = resolveAgentConfig(
      { stateDir: sd, orchestrator: 'https://flag.example:7390', fingerprint: FP_C, nodeId: 'from-flag', metricsInterval: '5', discoveryPort: '0', logLevel: 'error' },
      { env },
    );
    assert.equal(withFlags.orchestrator, 'https://flag.example:7390');
    assert.equal(withFlags.fingerprint, 'CC:'.repeat(31) + 'CC');
    assert.equal(withFlags.nodeId, 'from-flag');
    assert.equal(withFlags.metricsIntervalS, 5);
    assert.equal(withFlags.discoveryPort, null, '0 turns discovery off');
    assert.equal(withFlags.logLevel, 'error');
  });

  it('takes a flag for one setting and keeps the others from lower layers', () => {
    const sd = stateDir('mixed', 'node_id: file-node\nmetrics_interval: 15\n');
    const c = resolveAgentConfig({ stateDir: sd, metricsInterval: '2' }, { env: { CORRAL_AGENT_LOG_LEVEL: 'trace' } });
    assert.equal(c.nodeId, 'file-node');
    assert.equal(c.metricsIntervalS, 2);
    assert.equal(c.logLevel, 'trace');
  });

  it('reads the state dir and config file from CORRAL_AGENT_STATE_DIR / CORRAL_AGENT_CONFIG, or --config', () => {
    const sd = stateDir('env-dir', 'node_id: in-state-dir\n');
    assert.equal(resolveAgentConfig({}, { env: { CORRAL_AGENT_STATE_DIR: sd } }).nodeId, 'in-state-dir');
    const other = path.join(dir, 'other.yaml');
    writeFileSync(other, 'node_id: elsewhere\n');
    assert.equal(resolveAgentConfig({ stateDir: sd }, { env: { CORRAL_AGENT_CONFIG: other } }).nodeId, 'elsewhere');
    assert.equal(resolveAgentConfig({ stateDir: sd, config: other }, { env: {} }).nodeId, 'elsewhere');
  });

  it('refuses unknown keys in the file, naming the key and the known ones', () => {
    const sd = stateDir('unknown', 'orchestrator: http://x:7390\nmetric_interval: 5\n');
    assert.throws(
      () => resolveAgentConfig({ stateDir: sd }, { env: {} }),
      (err: Error) => err instanceof ConfigError && /unknown setting "metric_interval"/.test(err.message) && /metrics_interval/.test(err.message),
    );
  });

  it('refuses a file that is not a mapping, and a named config file that does not exist', () => {
    const sd = stateDir('list', '- a\n- b\n');
    assert.throws(() => resolveAgentConfig({ stateDir: sd }, { env: {} }), /expected a mapping/);
    assert.throws(() => resolveAgentConfig({ stateDir: sd, config: path.join(dir, 'nope.yaml') }, { env: {} }), /does not exist/);
    const broken = stateDir('broken', 'node_id: [unclosed\n');
    assert.throws(() => resolveAgentConfig({ stateDir: broken }, { env: {} }), ConfigError);
  });

  it('names the source of a bad value', () => {
    const sd = stateDir('bad-values');
    const cases: [Parameters<typeof resolveAgentConfig>[0], NodeJS.ProcessEnv, RegExp][] = [
      [{ metricsInterval: 'soon' }, {}, /^--metrics-interval: must be a number/],
      [{ metricsInterval: '0' }, {}, /--metrics-interval/],
      [{ discoveryPort: '70000' }, {}, /^--discovery-port: must be a whole number from 0 to 65535/],
      [{ discoveryPort: '1.5' }, {}, /--discovery-port/],
      [{}, { CORRAL_AGENT_NODE_ID: 'Bad Name' }, /^CORRAL_AGENT_NODE_ID: "Bad Name" is not a node id/],
      [{}, { CORRAL_AGENT_LOG_LEVEL: 'loud' }, /^CORRAL_AGENT_LOG_LEVEL: must be one of fatal, error/],
      [{ orchestrator: 'ftp://x' }, {}, /^--orchestrator: .*https:\/\//],
      [{ orchestrator: 'https://x:7390/agent/v1', fingerprint: FP_A }, {}, /without a path/],
      [{ orchestrator: 'not a url' }, {}, /is not a URL/],
      [{ orchestrator: 'https://x', fingerprint: 'abcd' }, {}, /^--fingerprint: .*not a SHA-256 certificate fingerprint/],
    ];
    for (const [flags, env, pattern] of cases) {
      assert.throws(() => resolveAgentConfig({ stateDir: sd, ...flags }, { env }), (err: Error) => err instanceof ConfigError && pattern.test(err.message), `${JSON.stringify(flags)} ${JSON.stringify(env)}`);
    }
    const fileDir = stateDir('bad-file-value', 'discovery_port: lots\n');
    assert.throws(() => resolveAgentConfig({ stateDir: fileDir }, { env: {} }), new RegExp(`agent.yaml: discovery_port: must be a whole number`));
  });

  it('checks values even where a higher layer overrides them', () => {
    const sd = stateDir('shadowed', 'metrics_interval: never\n');
    assert.throws(() => resolveAgentConfig({ stateDir: sd, metricsInterval: '5' }, { env: {} }), /metrics_interval/);
  });

  it('needs a fingerprint for https, and drops one given for plain http', () => {
    const sd = stateDir('pinning');
    assert.throws(() => resolveAgentConfig({ stateDir: sd, orchestrator: 'https://orch:7390' }, { env: {} }), /needs the orchestrator's certificate fingerprint/);
    const http = resolveAgentConfig({ stateDir: sd, orchestrator: 'http://orch:7390', fingerprint: FP_A }, { env: {} });
    assert.equal(http.fingerprint, null);
    assert.match(http.warnings.join('\n'), /plain http/);
  });

  it('defaults the state dir to /var/lib/corral-agent for root and the XDG state home otherwise', () => {
    assert.equal(defaultStateDir({}, true), '/var/lib/corral-agent');
    assert.equal(defaultStateDir({ XDG_STATE_HOME: '/home/u/.state' }, false), '/home/u/.state/corral-agent');
    assert.match(defaultStateDir({}, false), /\.local\/state\/corral-agent$/);
  });
});
