import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, DEFAULT_PORT, resolveConfig } from '../../orchestrator/config.js';
import { startOrchestrator } from '../../orchestrator/start.js';
import { makeKey } from '../helpers/keys.js';
import { removeDir, tempDir } from '../helpers/orchestrator.js';

let dataDir: string;
before(() => {
  dataDir = tempDir('corral-config-');
});
after(() => removeDir(dataDir));

function yaml(text: string): void {
  writeFileSync(path.join(dataDir, 'corral.yaml'), text);
}

describe('resolveConfig', () => {
  it('reads the shipped corral.yaml.example, whose values are the defaults', () => {
    const example = readFileSync(path.join(import.meta.dirname, '..', '..', 'resources', 'corral.yaml.example'), 'utf8');
    yaml('');
    const defaults = resolveConfig({ dataDir }, {});
    yaml(example.replace(/^bind: .*$/m, 'bind: 0.0.0.0'));
    const fromExample = resolveConfig({ dataDir }, {});
    assert.deepEqual(fromExample, defaults);
    assert.equal(fromExample.offlineNotifyDelayS, 30);
    assert.equal(fromExample.deliveryMaxAttempts, 12);
  });

  it('refuses delivery settings that cannot work, naming them', () => {
    yaml('delivery_max_attempts: 0\n');
    assert.throws(() => resolveConfig({ dataDir }, {}), (e: unknown) => e instanceof ConfigError && /delivery_max_attempts/.test(e.message));
    yaml('delivery_retry_base_s: 60\ndelivery_retry_cap_s: 10\n');
    assert.throws(() => resolveConfig({ dataDir }, {}), (e: unknown) => e instanceof ConfigError && /delivery_retry_cap_s/.test(e.message));
    yaml('delivery_timeout_s: 900\n');
    assert.throws(() => resolveConfig({ dataDir }, {}), (e: unknown) => e instanceof ConfigError && /delivery_timeout_s/.test(e.message));
  });

  it('has the documented defaults', () => {
    yaml('');
    const c = resolveConfig({ dataDir }, {});
    assert.equal(c.port, DEFAULT_PORT);
    assert.equal(c.port, 7390);
    assert.equal(c.bind, '0.0.0.0');
    assert.equal(c.http, false);
    assert.equal(c.tokenTtlHours, 12);
    assert.equal(c.authRateLimit, 10);
    assert.equal(c.bodyLimit, 1024 * 1024);
    assert.equal(c.dataDir, path.resolve(dataDir));
    assert.equal(c.adminKey, undefined);
  });

  it('takes corral.yaml over defaults, environment over corral.yaml, flags over the environment', () => {
    yaml('port: 7001\nbind: 10.0.0.1\nhttp: true\ntoken_ttl_hours: 2\nlog_level: debug\n');
    const fromYaml = resolveConfig({ dataDir }, {});
    assert.deepEqual([fromYaml.port, fromYaml.bind, fromYaml.http, fromYaml.tokenTtlHours, fromYaml.logLevel], [7001, '10.0.0.1', true, 2, 'debug']);

    const env = { CORRAL_PORT: '7002', CORRAL_HTTP: 'false', CORRAL_LOG_LEVEL: 'warn' };
    const fromEnv = resolveConfig({ dataDir }, env);
    assert.deepEqual([fromEnv.port, fromEnv.bind, fromEnv.http, fromEnv.tokenTtlHours, fromEnv.logLevel], [7002, '10.0.0.1', false, 2, 'warn']);

    const fromFlags = resolveConfig({ dataDir, port: 7003, http: true }, env);
    assert.deepEqual([fromFlags.port, fromFlags.bind, fromFlags.http, fromFlags.logLevel], [7003, '10.0.0.1', true, 'warn']);
    // An undefined flag (not given on the command line) does not hide the layers below.
    assert.equal(resolveConfig({ dataDir, port: undefined }, env).port, 7002);
  });

  it('finds the data directory from the flag, then CORRAL_DATA_DIR', () => {
    yaml('port: 7010\n');
    assert.equal(resolveConfig({}, { CORRAL_DATA_DIR: dataDir }).port, 7010, 'corral.yaml read from CORRAL_DATA_DIR');
    assert.equal(resolveConfig({ dataDir }, { CORRAL_DATA_DIR: '/nonexistent' }).dataDir, path.resolve(dataDir));
  });

  it('refuses an unknown corral.yaml key, naming it', () => {
    yaml('port: 7000\nprot: 7001\n');
    assert.throws(
      () => resolveConfig({ dataDir }, {}),
      (err: unknown) => err instanceof ConfigError && /unknown setting "prot"/.test(err.message),
    );
  });

  it('refuses values of the wrong kind from corral.yaml and the environment', () => {
    yaml('- a list\n');
    assert.throws(() => resolveConfig({ dataDir }, {}), ConfigError);
    yaml('http: maybe\n');
    assert.throws(() => resolveConfig({ dataDir }, {}), /true or false/);
    yaml('');
    assert.throws(() => resolveConfig({ dataDir }, { CORRAL_PORT: 'eighty' }), /CORRAL_PORT must be a non-negative number/);
    assert.throws(() => resolveConfig({ dataDir }, { CORRAL_PORT: '70000' }), /port must be 0-65535/);
    assert.throws(() => resolveConfig({ dataDir }, { CORRAL_HTTP: 'yes please' }), ConfigError);
  });

  it('puts an embedder\'s defaults (the desktop shell) below corral.yaml, environment and flags', () => {
    yaml('');
    const desktop = { bind: '127.0.0.1', port: 7390 };
    assert.equal(resolveConfig({ dataDir }, {}, desktop).bind, '127.0.0.1');
    yaml('bind: 0.0.0.0\n');
    assert.equal(resolveConfig({ dataDir }, {}, desktop).bind, '0.0.0.0', 'an admin opens the desktop orchestrator to the network');
    assert.equal(resolveConfig({ dataDir }, { CORRAL_BIND: '10.0.0.5' }, desktop).bind, '10.0.0.5');
    assert.equal(resolveConfig({ dataDir, bind: '::1' }, { CORRAL_BIND: '10.0.0.5' }, desktop).bind, '::1');
    yaml('');
  });

  it('reads the admin key from a line, or from a .pub file', () => {
    yaml('');
    const key = makeKey('boss@laptop');
    assert.equal(resolveConfig({ dataDir, adminKey: key.publicLine }, {}).adminKey, key.publicLine);
    const file = path.join(dataDir, 'boss.pub');
    writeFileSync(file, key.publicLine + '\n');
    assert.equal(resolveConfig({ dataDir, adminKey: file }, {}).adminKey, key.publicLine);
    assert.equal(resolveConfig({ dataDir }, { CORRAL_ADMIN_KEY: file }).adminKey, key.publicLine);
    yaml(`admin_key: ${file}\n`);
    assert.equal(resolveConfig({ dataDir }, {}).adminKey, key.publicLine);
    yaml('');
    assert.throws(() => resolveConfig({ dataDir, adminKey: path.join(dataDir, 'missing.pub') }, {}), /does not exist/);
  });

  it('refuses a bad admin key at start, naming the flag, before creating anything', async () => {
    yaml('');
    const fresh = tempDir('corral-badkey-');
    try {
      await assert.rejects(
        startOrchestrator({ dataDir: fresh, http: true, port: 0, bind: '127.0.0.1', adminKey: 'ssh-rsa AAAAB3NzaC1yc2E= me' }, {}),
        (err: Error) => err instanceof ConfigError && /--admin-key/.test(err.message) && /ssh-ed25519/.test(err.message),
      );
      assert.equal(existsSync(path.join(fresh, 'corral.db')), false, 'no database was created');
    } finally {
      removeDir(fresh);
    }
  });
});
