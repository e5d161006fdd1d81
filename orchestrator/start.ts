import type { FastifyInstance } from 'fastify';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type OrchestratorConfig, resolveConfig, type ResolvedConfig } from './config.js';
import type { Services } from './context.js';
import { openDatabase } from './db/database.js';
import { buildApp } from './http/app.js';
import { AgentHub } from './hub/agent-hub.js';
import { AgentsRepository } from './repositories/agents.js';
import { AuditRepository } from './repositories/audit.js';
import { MetricsRepository } from './repositories/metrics.js';
import { OperatorsRepository } from './repositories/operators.js';
import { SessionsRepository } from './repositories/sessions.js';
import { SettingsRepository } from './repositories/settings.js';
import { TerminalsRepository } from './repositories/terminals.js';
import { AgentEvents, AgentPresence } from './services/agent-presence.js';
import { AgentsService } from './services/agents.js';
import { AuditService } from './services/audit.js';
import { DiscoveryService } from './services/discovery.js';
import { MetricsService } from './services/metrics.js';
import { AuthService } from './services/auth.js';
import { OperatorsService } from './services/operators.js';
import { TerminalsService } from './services/terminals.js';
import { ensureCertificate } from './tls.js';
import { HttpError } from './http/errors.js';
import { parseOperatorKey } from './services/keys.js';

/** Checks --admin-key before anything is opened, with a message that names the flag. */
function parseAdminKey(line: string): void {
  try {
    parseOperatorKey(line, 'admin key');
  } catch (err) {
    if (err instanceof HttpError) throw new ConfigError(`--admin-key / admin_key: ${err.message.replace(/^admin key: /, '')}`);
    throw err;
  }
}

export interface OrchestratorHandle {
  /** Base URL clients use, e.g. https://localhost:7390 */
  url: string;
  port: number;
  tlsFingerprint: string | null;
  /** One-time link that creates the first admin; only while no operator exists. */
  setupUrl: string | null;
  config: ResolvedConfig;
  services: Services;
  app: FastifyInstance;
  close(): Promise<void>;
}

function displayHost(bind: string): string {
  if (bind === '0.0.0.0' || bind === '::' || bind === '') return 'localhost';
  return bind.includes(':') ? `[${bind}]` : bind;
}

export function createServices(config: ResolvedConfig, tlsFingerprint: string | null): Services {
  const db = openDatabase(path.join(config.dataDir, 'corral.db'));
  const settings = new SettingsRepository(db);
  const operators = new OperatorsService(db, new OperatorsRepository(db));
  const audit = new AuditService(db, new AuditRepository(db), settings);
  const auth = new AuthService(new SessionsRepository(db), operators, {
    tokenTtlMs: config.tokenTtlHours * 3600_000,
    maxFailuresPerOperator: config.maxAuthFailures,
  });
  const agentEvents = new AgentEvents();
  const presence = new AgentPresence(agentEvents);
  const metrics = new MetricsService(new MetricsRepository(db));
  // The rows go by ON DELETE CASCADE; the in-memory latest sample goes here.
  agentEvents.on('deleted', (nodeId) => metrics.forget(nodeId));
  const agentsRepo = new AgentsRepository(db);
  const agents = new AgentsService(db, agentsRepo, presence, agentEvents, metrics);
  const hub = new AgentHub(agents, presence, audit, metrics, { heartbeatS: config.heartbeatS });
  const terminals = new TerminalsService(new TerminalsRepository(db), agents, presence, audit, hub, {
    dataDir: config.dataDir,
    maxPerAgent: config.terminalMaxPerAgent,
    idleTimeoutS: config.terminalIdleTimeoutS,
    transcriptCapBytes: config.terminalTranscriptCapBytes,
    recordInput: config.terminalRecordInput,
  });
  hub.setTerminalSink(terminals);
  operators.onRemoved((operatorId) => terminals.operatorRemoved(operatorId));
  const services: Services = {
    config, db, audit, auth, operators, agentEvents, presence, agents, metrics, hub, terminals,
    discovery: new DiscoveryService({
      port: config.discoveryPort,
      broadcast: config.discoveryBroadcast,
      scheme: config.http ? 'http' : 'https',
      apiPort: () => services.listenPort,
      bind: config.bind,
      publicUrl: config.publicUrl,
      fingerprint: tlsFingerprint,
      isKnown: (nodeId) => agentsRepo.get(nodeId) !== undefined,
    }),
    startedAt: Date.now(),
    tlsFingerprint,
    listenPort: config.port,
  };
  return services;
}

/**
 * Starts a whole orchestrator: store, API, web UI and background jobs.
 * The CLI (`corral serve`), the Electron main process and the tests all call this.
 */
export async function startOrchestrator(options: OrchestratorConfig = {}, env: NodeJS.ProcessEnv = process.env): Promise<OrchestratorHandle> {
  const config = resolveConfig(options, env);
  if (config.adminKey) parseAdminKey(config.adminKey);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const tls = config.http ? null : await ensureCertificate(config.dataDir);
  const services = createServices(config, tls?.fingerprint ?? null);
  const { operators, audit, auth, db } = services;

  let app: FastifyInstance | undefined;
  try {
    if (config.adminKey) {
      const result = operators.bootstrapAdmin(config.adminKey);
      if (result.created) {
        audit.record({ actor_type: 'system', actor: 'admin-key', action: 'setup.first_admin', target: 'admin', outcome: 'success', details: { via: '--admin-key' } });
      }
    }
    app = await buildApp(services, tls ? { https: { key: tls.key, cert: tls.cert } } : {});
    const stale = services.terminals.start(app.log.child({ component: 'terminals' }));
    if (stale) app.log.info({ sessions: stale }, 'closed terminal sessions a previous run left open');
    await app.listen({ port: config.port, host: config.bind });
  } catch (err) {
    await app?.close();
    db.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  services.listenPort = port;
  const url = `${tls ? 'https' : 'http'}://${displayHost(config.bind)}:${port}`;

  const setup = auth.issueSetupToken();
  const setupUrl = setup ? `${url}/#/setup?token=${setup.token}` : null;

  audit.startRetentionJob((err) => app.log.error({ err }, 'audit retention job failed'));
  services.metrics.start((err) => app.log.error({ err }, 'metrics retention job failed'));
  const purge = setInterval(() => auth.purgeExpired(), 60_000);
  purge.unref();

  if (config.banner) {
    const lines = [`Corral orchestrator listening on ${url}`, `  data directory: ${config.dataDir}`];
    if (tls) lines.push(`  TLS certificate SHA-256: ${tls.fingerprint}`);
    else lines.push('  plain HTTP (--http): use only on loopback or a trusted network');
    if (setupUrl) lines.push('', 'No operator exists yet. Open this one-time link (valid 1 h) to create the first admin:', `  ${setupUrl}`);
    console.log(lines.join('\n'));
  }

  let closed = false;
  return {
    url,
    port,
    tlsFingerprint: tls?.fingerprint ?? null,
    setupUrl,
    config,
    services,
    app,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(purge);
      audit.stop();
      services.metrics.stop();
      await services.terminals.stop();
      services.hub.stop();
      await app.close();
      db.close();
    },
  };
}
