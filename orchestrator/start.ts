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
import { ModulesRepository } from './repositories/modules.js';
import { OperatorsRepository } from './repositories/operators.js';
import { SessionsRepository } from './repositories/sessions.js';
import { SettingsRepository } from './repositories/settings.js';
import { TerminalsRepository } from './repositories/terminals.js';
import { SecretsRepository } from './repositories/secrets.js';
import { AgentEvents, AgentPresence } from './services/agent-presence.js';
import { AgentsService } from './services/agents.js';
import { AuditService } from './services/audit.js';
import { DiscoveryService } from './services/discovery.js';
import { MetricsService } from './services/metrics.js';
import { ModulesService } from './services/modules.js';
import { AuthService } from './services/auth.js';
import { OperatorsService } from './services/operators.js';
import { TerminalsService } from './services/terminals.js';
import { loadMasterKey, type MasterKey } from './services/master-key.js';
import { SecretBox } from './services/secret-box.js';
import { eventFromRow } from './services/event-bus.js';
import { SecretsService } from './services/secrets.js';
import { StateRunner } from './services/state-runner.js';
import { OperationsService } from './services/operations.js';
import { DriftService } from './services/drift.js';
import { OperationsRepository } from './repositories/operations.js';
import { DriftRepository } from './repositories/drift.js';
import { AssignmentsService } from './services/assignments.js';
import { AssignmentsRepository } from './repositories/assignments.js';
import { ensureCertificate } from './tls.js';
import { EventsRepository } from './repositories/events.js';
import { ChannelsRepository } from './repositories/channels.js';
import { MaintenanceRepository } from './repositories/maintenance.js';
import { EventBus } from './services/event-bus.js';
import { NotificationsService } from './services/notifications.js';
import { ChannelsService } from './services/channels.js';
import { DeliveryQueue } from './services/delivery-queue.js';
import { MaintenanceService } from './services/maintenance.js';
import { summariseHeld } from './services/maintenance-digest.js';
import type { MaintenanceWindow } from '../common/schemas/maintenance.js';
import type { FleetEvent } from '../common/schemas/events.js';
import { LiveStream } from './services/live-stream.js';
import { OfflineAlerts, agentEventSource, auditEventSource, driftEventSource, operationEventSource } from './services/fleet-event-sources.js';
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

/**
 * Wires every service over one database. `masterKey` seals secrets (see
 * services/master-key.ts for where startOrchestrator finds it).
 */
export function createServices(config: ResolvedConfig, tlsFingerprint: string | null, masterKey: Buffer, embedder: Pick<OrchestratorConfig, 'desktopNotifier'> = {}): Services {
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
  // Key id 1 is the first master key; a rotation (docs/secrets.md) adds id 2 and keeps 1 for reading.
  const box = new SecretBox({ id: 1, key: masterKey });
  const secrets = new SecretsService(db, new SecretsRepository(db), box);
  // Modules refuse references to unknown secrets; secrets show (and protect) the modules using them.
  const modules = new ModulesService(db, new ModulesRepository(db), { secretExists: (name) => secrets.exists(name) });
  secrets.setUsedBy((name) => modules.usingSecret(name));
  terminals.setSecretValues(() => secrets.allValues());
  const runner = new StateRunner(hub);
  hub.setStateSink(runner);
  const isLinked = (nodeId: string) => hub.isLinked(nodeId);
  const operations = new OperationsService(db, new OperationsRepository(db), modules, secrets, agents, runner, isLinked);
  const drift = new DriftService(new DriftRepository(db), operations, agents, runner, isLinked);
  operations.setLatestDrift((nodeId) => drift.latestGlance(nodeId));
  const assignments = new AssignmentsService(db, new AssignmentsRepository(db), modules, agents, operations, config.applyConcurrency);
  const { bus, notifications, channels, deliveries, maintenance, live, offlineAlerts } = wireEvents(config, db, box, embedder, { audit, agentEvents, presence, agents, operations, drift });
  assignments.setMaintenanceLookup((nodeId) => maintenance.windowFor(nodeId));
  agents.setMaintenanceLookup((nodeId, tags) => maintenance.windowFor(nodeId, tags));
  operators.onRemoved((operatorId) => live.closeOperator(operatorId));
  const services: Services = {
    config, db, audit, auth, operators, agentEvents, presence, agents, metrics, hub, terminals, secrets, modules, runner, operations, drift, assignments,
    bus, notifications, channels, deliveries, maintenance, live, offlineAlerts,
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
 * The event bus and everything around it: where events come from, the inbox, the
 * channels' delivery queue, maintenance windows (which hold events back), the live stream.
 */
function wireEvents(
  config: ResolvedConfig,
  db: Services['db'],
  box: SecretBox,
  embedder: Pick<OrchestratorConfig, 'desktopNotifier'>,
  s: Pick<Services, 'audit' | 'agentEvents' | 'presence' | 'agents' | 'operations' | 'drift'>,
) {
  const eventsRepo = new EventsRepository(db);
  const bus = new EventBus(eventsRepo);
  const notifications = new NotificationsService(eventsRepo, config.notificationRetentionDays);
  const channelsRepo = new ChannelsRepository(db);
  const channels = new ChannelsService(channelsRepo, box);
  const deliveries = new DeliveryQueue(channelsRepo, channels, {
    retryBaseMs: config.deliveryRetryBaseS * 1000,
    retryCapMs: config.deliveryRetryCapS * 1000,
    maxAttempts: config.deliveryMaxAttempts,
    sendTimeoutMs: config.deliveryTimeoutS * 1000,
    linkBase: config.publicUrl ?? null,
  });
  const live = new LiveStream();
  const native = embedder.desktopNotifier;
  deliveries.setDesktop({ native: native ? (n) => native({ title: n.title, body: n.body, severity: n.severity }) : undefined, browsers: (n) => live.desktop(n) });
  const summarise = (window: MaintenanceWindow, held: FleetEvent[]) => summariseHeld(window, held, (nodeId) => s.presence.isOnline(nodeId));
  const maintenance = new MaintenanceService(new MaintenanceRepository(db), s.agents, bus, { held: (windowId) => eventsRepo.heldBy(windowId).map(eventFromRow), summarise });
  bus.setHoldLookup((nodeId) => maintenance.windowFor(nodeId));
  maintenance.events.on('ended', (window, announcement, held) => deliveries.enqueueDigest(window, announcement, held, summarise));

  // Sources -> bus.
  const offlineAlerts = new OfflineAlerts(bus, eventsRepo, s.agents, s.presence, config.offlineNotifyDelayS * 1000);
  agentEventSource(bus, s.agentEvents, s.agents, offlineAlerts);
  operationEventSource(bus, (listener) => s.operations.events.on('finished', listener));
  driftEventSource(bus, (event, listener) => s.drift.events.on(event, listener));
  auditEventSource(bus, (listener) => s.audit.onRecorded(listener));

  // Bus -> channels and the live stream.
  bus.events.on('raised', (event) => deliveries.enqueueEvent(event));
  bus.events.on('raised', (event, recipients) => {
    const { actor: _actor, ...shown } = event;
    for (const operatorId of recipients) {
      live.toOperator(operatorId, 'notification', { notification: { ...shown, read: false, read_at: null }, unread_count: notifications.unreadCount(operatorId) });
    }
  });
  notifications.onRead((operatorId, unread) => live.toOperator(operatorId, 'unread', { unread_count: unread }));
  s.agentEvents.on('online', (nodeId) => live.broadcast('agent', { node_id: nodeId, online: true }));
  s.agentEvents.on('offline', (nodeId) => live.broadcast('agent', { node_id: nodeId, online: false }));
  for (const change of ['status', 'tags', 'enrolled', 'deleted'] as const) {
    s.agentEvents.on(change, (nodeId: string) => live.broadcast('agent', { node_id: nodeId, change }));
  }
  const operationChanged = (op: { operation_id: string; node_id: string; kind: string; status: string }) =>
    live.broadcast('operation', { operation_id: op.operation_id, node_id: op.node_id, kind: op.kind, status: op.status });
  s.operations.events.on('progress', operationChanged);
  s.operations.events.on('finished', operationChanged);
  maintenance.events.on('changed', (windowId) => live.broadcast('maintenance', { window_id: windowId }));
  return { bus, notifications, channels, deliveries, maintenance, live, offlineAlerts };
}

/**
 * Starts a whole orchestrator: store, API, web UI and background jobs.
 * The CLI (`corral serve`), the Electron main process and the tests all call this.
 */
export async function startOrchestrator(
  options: OrchestratorConfig = {},
  env: NodeJS.ProcessEnv = process.env,
  embedderDefaults: Pick<OrchestratorConfig, 'bind' | 'port'> = {},
): Promise<OrchestratorHandle> {
  const config = resolveConfig(options, env, embedderDefaults);
  if (config.adminKey) parseAdminKey(config.adminKey);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Before anything else is opened: a master key with loose permissions stops the start.
  const masterKey: MasterKey = loadMasterKey(config.dataDir, env, options.masterKey);
  const tls = config.http ? null : await ensureCertificate(config.dataDir);
  const services = createServices(config, tls?.fingerprint ?? null, masterKey.key, { desktopNotifier: options.desktopNotifier });
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
    services.runner.setLogger(app.log.child({ component: 'state-runner' }));
    const abandoned = services.operations.recover() + services.drift.recover();
    if (abandoned) app.log.warn({ count: abandoned }, 'operations and drift checks a previous run left unfinished were marked cancelled/failed');
    // Where the key came from, never the key. A key that opens none of the stored secrets is
    // most likely the wrong one (another CORRAL_MASTER_KEY, a lost master.key): say so now,
    // but keep serving; reveal() fails with the same explanation for each affected secret.
    app.log.info({ source: masterKey.source, ...(masterKey.file ? { file: masterKey.file } : {}) }, 'master key loaded');
    const sealedElsewhere = services.secrets.undecryptable();
    if (sealedElsewhere.length) {
      app.log.warn(
        { secrets: sealedElsewhere.slice(0, 20), count: sealedElsewhere.length },
        'the master key cannot decrypt some stored secrets: it is not the key they were stored with (see docs/secrets.md)',
      );
    }
    if (stale) app.log.info({ sessions: stale }, 'closed terminal sessions a previous run left open');
    const eventsLog = app.log.child({ component: 'events' });
    services.bus.setErrorHandler((err) => eventsLog.error({ err }, 'an event listener failed'));
    services.deliveries.setErrorLog((err, msg) => eventsLog.error({ err }, msg));
    const resumed = services.deliveries.start();
    if (resumed) eventsLog.info({ deliveries: resumed }, 'resending channel deliveries a previous run left unanswered');
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
  services.drift.startSchedule(config.driftIntervalS * 1000, (err) => app.log.error({ err }, 'scheduled drift checks failed'));
  services.maintenance.start((err) => app.log.error({ err }, 'maintenance window timer failed'));
  services.notifications.startRetention((err) => app.log.error({ err }, 'notification retention job failed'));
  services.offlineAlerts.afterStart(config.heartbeatS * 3000);
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
      services.drift.stop();
      services.maintenance.stop();
      services.notifications.stop();
      services.offlineAlerts.stop();
      services.live.closeAll();
      await services.deliveries.stop();
      services.runner.stop();
      await services.terminals.stop();
      services.hub.stop();
      await app.close();
      db.close();
    },
  };
}
