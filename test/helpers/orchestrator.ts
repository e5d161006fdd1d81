// A real orchestrator on loopback, in its own temporary data directory, and a
// small HTTP client for it. Tests talk to it over real sockets.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Role } from '../../common/auth.js';
import type { OrchestratorConfig } from '../../orchestrator/config.js';
import { startOrchestrator, type OrchestratorHandle } from '../../orchestrator/start.js';
import { makeKey, type TestKey } from './keys.js';

export function tempDir(prefix = 'corral-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface ApiOptions {
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent exactly as given (set content-type yourself in headers if needed). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface ApiResult {
  status: number;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  json: any;
  text: string;
}

export type Api = (method: string, apiPath: string, options?: ApiOptions) => Promise<ApiResult>;

export interface ClientTls {
  /** PEM of the only certificate to trust. */
  ca?: string;
  rejectUnauthorized?: boolean;
}

/**
 * Makes `api(method, path, {token, body, rawBody, headers})` for a base URL.
 * Paths are relative to /api/v1 unless they start with /api/ or are absolute URLs.
 */
export function makeApi(baseUrl: string, tlsOptions: ClientTls = {}): Api {
  return (method, apiPath, options = {}) => {
    const target = new URL(/^https?:/.test(apiPath) || apiPath.startsWith('/api/') || apiPath === '/' ? apiPath : '/api/v1' + apiPath, baseUrl);
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    let payload: string | Buffer | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const secure = target.protocol === 'https:';
    const lib = secure ? https : http;
    return new Promise<ApiResult>((resolve, reject) => {
      const req = lib.request(target, { method, headers, agent: false, ...(secure ? tlsOptions : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          if (String(res.headers['content-type'] ?? '').includes('json') && text) json = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  };
}

export interface Login {
  token: string;
  operatorId: string;
  key: TestKey;
}

export interface TestOrchestrator {
  handle: OrchestratorHandle;
  url: string;
  dataDir: string;
  /** The key of the first admin ("admin"); undefined when started without one. */
  adminKey: TestKey | undefined;
  api: Api;
  /** Challenge, raw Ed25519 signature, verify: returns the session token. */
  login(operatorId: string, key: TestKey): Promise<string>;
  /** A token of the first admin (made once, then reused). */
  adminToken(): Promise<string>;
  /** Creates a fresh operator with the role through the admin, signs in, returns its token. */
  loginAs(role: Role, operatorId?: string): Promise<Login>;
  close(): Promise<void>;
}

export interface TestOrchestratorOptions extends OrchestratorConfig {
  /** Create the first admin with a generated key (default true). */
  withAdmin?: boolean;
  /** Create the first admin with this key instead of a generated one. */
  admin?: TestKey;
  /** Keep the data directory when closing (for restart tests). */
  keepDataDir?: boolean;
}

let counter = 0;

/** Starts a real orchestrator on 127.0.0.1 with a random port, plain HTTP unless http: false. */
export async function startTestOrchestrator(options: TestOrchestratorOptions = {}): Promise<TestOrchestrator> {
  const { withAdmin = true, keepDataDir = false, admin, ...config } = options;
  const dataDir = config.dataDir ?? tempDir();
  const adminKey = admin ?? (withAdmin && !config.adminKey ? makeKey('admin@corral-test') : undefined);
  let handle: OrchestratorHandle;
  try {
    handle = await startOrchestrator(
      {
        port: 0,
        bind: '127.0.0.1',
        http: true,
        logLevel: 'silent',
        authRateLimit: 100_000,
        maxAuthFailures: 100_000,
        // Tests never broadcast on the machine's real interfaces; they probe loopback or their own namespaces.
        discoveryBroadcast: false,
        ...(adminKey ? { adminKey: adminKey.publicLine } : {}),
        ...config,
        dataDir,
      },
      {}, // no CORRAL_* from the environment running the tests
    );
  } catch (err) {
    if (!config.dataDir) removeDir(dataDir);
    throw err;
  }
  const secure = handle.url.startsWith('https:');
  const api = makeApi(handle.url, secure ? { ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8') } : {});

  async function login(operatorId: string, key: TestKey): Promise<string> {
    const challenge = await api('POST', '/auth/challenge', { body: { operator_id: operatorId } });
    assert.equal(challenge.status, 200, challenge.text);
    const verify = await api('POST', '/auth/verify', {
      body: { operator_id: operatorId, nonce: challenge.json.nonce, signature: key.sign(challenge.json.message) },
    });
    assert.equal(verify.status, 200, verify.text);
    return verify.json.token as string;
  }

  let adminTokenValue: string | undefined;
  async function adminToken(): Promise<string> {
    if (!adminKey) throw new Error('this orchestrator was started without a generated admin key');
    adminTokenValue ??= await login('admin', adminKey);
    return adminTokenValue;
  }

  async function loginAs(role: Role, operatorId = `${role}-${++counter}`): Promise<Login> {
    const key = makeKey(`${operatorId}@corral-test`);
    const created = await api('POST', '/operators', {
      token: await adminToken(),
      body: { operator_id: operatorId, role, public_keys: [key.publicLine] },
    });
    assert.equal(created.status, 201, created.text);
    return { token: await login(operatorId, key), operatorId, key };
  }

  return {
    handle,
    url: handle.url,
    dataDir,
    adminKey,
    api,
    login,
    adminToken,
    loginAs,
    async close() {
      await handle.close();
      if (!keepDataDir) removeDir(dataDir);
    },
  };
}

/** Asserts an RFC 9457 problem answer with the status (and code, if given). */
export function assertProblem(res: ApiResult, status: number, code?: string): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(typeof res.json, 'object');
  for (const field of ['type', 'title', 'code'] as const) assert.equal(typeof res.json[field], 'string', `problem has ${field}`);
  assert.equal(res.json.status, status);
  if (code !== undefined) assert.equal(res.json.code, code, res.text);
}
