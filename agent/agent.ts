// startAgent wires the parts together: identity, the link (when an orchestrator is known),
// metrics into the outbox, attributes reporter, and the discovery listener that answers
// probes and, on an agent with no orchestrator, joins the one it heard. Terminals live
// only while the link is up and accepted: any other state closes them all.
import type { RemoteInfo } from 'node:dgram';
import os from 'node:os';
import { PACKAGE_VERSION } from '../common/node/package-root.js';
import { DISCOVERY_PORT, NODE_ID_PATTERN, nodeIdFromHostname, type ApprovalStatus, type DiscoveryProbe } from '../common/protocol.js';
import { collectAttributes } from './attributes.js';
import { AttributesReporter } from './attributes-reporter.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { DiscoveryListener } from './discovery.js';
import { loadOrCreateIdentity } from './identity.js';
import { readJoined, writeJoined } from './joined.js';
import { AgentLink, type LinkState } from './link/link.js';
import { normaliseOrchestratorUrl, parseCertFingerprint } from './link/url.js';
import { createLogger, type Logger } from './logger.js';
import { MetricsCollector } from './metrics/collector.js';
import { DEFAULT_BUFFER_CAPACITY, MetricsOutbox } from './outbox.js';
import { interfaceAddresses } from './system/network.js';
import { detectVirtualization } from './system/virtualization.js';
import { ensureStateDir } from './state-dir.js';
import { StateExecutor, type ExecutorOptions } from './state/executor.js';
import { TerminalManager, type TerminalOptions } from './terminal/manager.js';

export class AgentError extends Error {}

export interface AgentOptions {
  stateDir: string;
  /** Base URL; when absent, the one learned through discovery (state.json), else none yet. */
  orchestrator?: string | null;
  fingerprint?: string | null;
  /** Default: nodeIdFromHostname(os.hostname()). */
  nodeId?: string;
  /** Seconds between samples (default 10). */
  metricsIntervalS?: number;
  /** UDP port of the discovery listener (default 7391); null turns it off; 0 picks a free port. */
  discoveryPort?: number | null;
  /** Address the discovery listener binds (default 0.0.0.0). */
  discoveryAddress?: string;
  logLevel?: string;
  /** A ready logger (tests capture lines through one); otherwise JSON lines on stdout. */
  logger?: Logger;
  /** Seconds between attribute re-reads (default 60). */
  attributesIntervalS?: number;
  /** Samples kept while the link is down (default 8640: 24 h at 10 s). */
  bufferCapacity?: number;
  backoff?: BackoffOptions;
  handshakeTimeoutMs?: number;
  stableAfterMs?: number;
  /** Terminal limits and lookups (tests change them; the defaults suit a real machine). */
  terminals?: TerminalOptions;
  /** Desired-state runs: a path prefix for tests, a provider registry. */
  state?: ExecutorOptions;
}

export interface AgentHandle {
  readonly nodeId: string;
  /** SHA256:... of the agent key, as the orchestrator shows it for approval. */
  readonly keyFingerprint: string;
  /** Raw public key, base64 (what the auth message carries). */
  readonly publicKey: string;
  readonly orchestrator: string | null;
  /** 'unconfigured' while no orchestrator is known (waiting for a discovery probe). */
  readonly linkState: LinkState | 'unconfigured';
  readonly approvalStatus: ApprovalStatus | null;
  /** The port the discovery listener is bound to, or null. */
  readonly discoveryPort: number | null;
  readonly bufferedSamples: number;
  readonly droppedSamples: number;
  /** Welcomes received since start (reconnects show up here). */
  readonly connections: number;
  /** Terminals open right now. */
  readonly terminals: number;
  stop(): Promise<void>;
}

function checkedNodeId(nodeId: string | undefined): string {
  const id = nodeId ?? nodeIdFromHostname(os.hostname());
  if (!NODE_ID_PATTERN.test(id)) throw new AgentError(`"${id}" is not a valid node id (lower-case letters, digits, ".", "_", "-")`);
  return id;
}

export async function startAgent(options: AgentOptions): Promise<AgentHandle> {
  const log = options.logger ?? createLogger(options.logLevel ?? 'info');
  const nodeId = checkedNodeId(options.nodeId);
  const hostname = os.hostname();
  ensureStateDir(options.stateDir);

  let orchestrator = options.orchestrator ? normaliseOrchestratorUrl(options.orchestrator) : null;
  let fingerprint = orchestrator && options.fingerprint ? parseCertFingerprint(options.fingerprint) : null;
  if (!orchestrator) {
    const joined = readJoined(options.stateDir, log);
    if (joined) {
      orchestrator = joined.orchestrator;
      fingerprint = joined.fingerprint;
      log.info({ orchestrator, joined_at: joined.joined_at }, 'rejoining the orchestrator this agent joined through discovery');
    }
  }
  const discoveryPort = options.discoveryPort === undefined ? DISCOVERY_PORT : options.discoveryPort;
  if (!orchestrator && discoveryPort === null) {
    throw new AgentError('no orchestrator is configured and discovery is off, so this agent could never link to one; set --orchestrator or a discovery port');
  }
  const identity = loadOrCreateIdentity(options.stateDir, nodeId, log);

  // Looked up once: it cannot change while the machine runs, and it costs a process spawn.
  const virtualization = detectVirtualization();
  let link: AgentLink | null = null;
  let session = 0;
  let sessionReady = false;
  const reporter = new AttributesReporter(
    () => collectAttributes({ agentVersion: PACKAGE_VERSION, virtualization }),
    {
      get canSend() {
        return link?.canSendData ?? false;
      },
      send: (attributes) => link!.sendData({ type: 'attributes', attributes }),
    },
    log,
  );
  const outbox = new MetricsOutbox(
    {
      // Attributes go first on each accepted link; metrics wait until they are out.
      get canSend() {
        return sessionReady && (link?.canSendData ?? false);
      },
      send: (samples) => link!.sendData({ type: 'metrics', samples }),
    },
    log,
    options.bufferCapacity ?? DEFAULT_BUFFER_CAPACITY,
  );

  const terminals = new TerminalManager(
    {
      get canSend() {
        return link?.canSendData ?? false;
      },
      get bufferedAmount() {
        return link?.bufferedAmount ?? 0;
      },
      sendFrame: (frame) => link?.sendBinary(frame) ?? false,
      sendReply: (message) => {
        if (!link?.canSendData) return void log.debug({ type: message.type, session_id: message.session_id }, 'terminal reply not sent: the link is not accepted');
        link.sendData(message).catch((err: Error) => log.warn({ err: err.message, type: message.type }, 'could not send a terminal reply'));
      },
    },
    log,
    options.terminals,
  );

  const states = new StateExecutor(
    {
      get canSend() {
        return link?.canSendData ?? false;
      },
      send: (message) => link!.sendData(message),
    },
    log,
    options.state,
  );

  const onAccepted = () => {
    const mine = ++session;
    sessionReady = false;
    void reporter.refresh(true).finally(() => {
      if (mine !== session) return;
      sessionReady = true;
      void outbox.flush();
    });
  };
  const onStateChange = (state: LinkState) => {
    log.debug({ state }, 'link state');
    if (state !== 'accepted') {
      session++;
      sessionReady = false;
      reporter.linkLost();
      void terminals.closeAll(`the link is ${state}`);
    }
  };
  const startLink = () => {
    link = new AgentLink({
      orchestrator: orchestrator!,
      fingerprint,
      nodeId,
      hostname,
      agentVersion: PACKAGE_VERSION,
      identity,
      log,
      backoff: new Backoff(options.backoff),
      handshakeTimeoutMs: options.handshakeTimeoutMs,
      stableAfterMs: options.stableAfterMs,
      onAccepted,
      onStateChange,
      onTerminalMessage: (message) => terminals.handle(message),
      onTerminalFrame: (kind, sessionId, payload) => terminals.input(kind, sessionId, payload),
      onStateRun: (message) => states.submit(message),
    });
    link.start();
  };

  const join = (probe: DiscoveryProbe, from: RemoteInfo) => {
    if (orchestrator) return; // an enrolled agent only answers
    let url: string;
    let fp: string | null;
    try {
      url = normaliseOrchestratorUrl(probe.orchestrator_url);
      fp = probe.fingerprint ? parseCertFingerprint(probe.fingerprint) : null;
      if (url.startsWith('https:') && !fp) throw new Error('an https orchestrator URL without a certificate fingerprint');
    } catch (err) {
      log.warn({ from: from.address, err: (err as Error).message }, 'not joining the orchestrator in this probe');
      return;
    }
    orchestrator = url;
    fingerprint = url.startsWith('https:') ? fp : null;
    try {
      writeJoined(options.stateDir, { orchestrator: url, fingerprint, joined_at: new Date().toISOString(), heard_from: from.address });
    } catch (err) {
      log.error({ err: (err as Error).message }, 'cannot write state.json; joining for this run only (a restart will wait for a probe again)');
    }
    log.info({ orchestrator: url, fingerprint, from: from.address }, 'joining the orchestrator heard through discovery');
    startLink();
  };

  // Metrics: sampled on schedule whatever the link does; the outbox decides when they leave.
  const collector = new MetricsCollector();
  let sampling = false;
  const metricsTimer = setInterval(
    () => {
      if (sampling) return; // a slow disk must not pile up overlapping samples
      sampling = true;
      collector
        .sample()
        .then((sample) => {
          outbox.add(sample);
          return outbox.flush();
        })
        .catch((err: Error) => log.error({ err }, 'could not take a metrics sample'))
        .finally(() => (sampling = false));
    },
    (options.metricsIntervalS ?? 10) * 1000,
  );
  const attributesTimer = setInterval(() => void reporter.refresh(), (options.attributesIntervalS ?? 60) * 1000);

  let discovery: DiscoveryListener | null = null;
  let boundPort: number | null = null;
  if (discoveryPort !== null) {
    discovery = new DiscoveryListener({
      port: discoveryPort,
      address: options.discoveryAddress,
      log,
      identity: () => ({
        node_id: nodeId,
        hostname,
        addresses: interfaceAddresses().ips,
        agent_version: PACKAGE_VERSION,
        key_fingerprint: identity.fingerprint,
        enrolled: orchestrator !== null,
      }),
      onProbe: join,
    });
    try {
      boundPort = await discovery.start();
    } catch (err) {
      // The link does not need discovery; an agent without an orchestrator does.
      log.error({ err: (err as Error).message, port: discoveryPort }, 'cannot listen for discovery probes');
      discovery = null;
      if (!orchestrator) {
        clearInterval(metricsTimer);
        clearInterval(attributesTimer);
        throw new Error(`cannot listen for discovery probes on UDP port ${discoveryPort} (${(err as Error).message}) and no orchestrator is configured`);
      }
    }
  }
  if (orchestrator) startLink();

  log.info(
    { node_id: nodeId, key_fingerprint: identity.fingerprint, version: PACKAGE_VERSION, state_dir: options.stateDir, orchestrator, discovery_port: boundPort },
    orchestrator ? 'corral-agent started' : 'corral-agent started; no orchestrator yet, waiting for a discovery probe',
  );

  let stopping: Promise<void> | null = null;
  return {
    nodeId,
    keyFingerprint: identity.fingerprint,
    publicKey: Buffer.from(identity.publicKey).toString('base64'),
    get orchestrator() {
      return orchestrator;
    },
    get linkState() {
      return link?.state ?? 'unconfigured';
    },
    get approvalStatus() {
      return link?.approvalStatus ?? null;
    },
    discoveryPort: boundPort,
    get bufferedSamples() {
      return outbox.size;
    },
    get droppedSamples() {
      return outbox.dropped;
    },
    get connections() {
      return link?.connections ?? 0;
    },
    get terminals() {
      return terminals.size;
    },
    stop() {
      stopping ??= (async () => {
        clearInterval(metricsTimer);
        clearInterval(attributesTimer);
        await Promise.all([link?.stop(), discovery?.stop(), terminals.closeAll('the agent is stopping')]);
        log.info('corral-agent stopped');
      })();
      return stopping;
    },
  };
}
