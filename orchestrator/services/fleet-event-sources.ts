// Where fleet events come from: each service's own signals (agents, operations, drift,
// maintenance, the audit trail) turned into bus events with a title people can read.
import type { OperationSummary } from '../../common/schemas/state.js';
import type { EventsRepository } from '../repositories/events.js';
import type { AgentEvents, AgentPresence } from './agent-presence.js';
import type { AgentsService } from './agents.js';
import type { AuditEntry } from './audit.js';
import type { EventBus } from './event-bus.js';

/** One key-mismatch notice per agent per hour: a refused agent keeps redialling. */
const KEY_MISMATCH_QUIET_MS = 3600_000;
/** At start, agents seen this recently that have not come back are announced offline. */
const RECENTLY_SEEN_MS = 24 * 3600_000;

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

function hostname(agents: AgentsService, nodeId: string): string {
  try {
    const h = agents.get(nodeId).attributes.hostname;
    return h && h !== nodeId ? ` (${h})` : '';
  } catch {
    return '';
  }
}

/**
 * An agent is announced offline only after it stayed away `delayMs` (a restart of the
 * agent says nothing), and announced back online only if it was announced offline:
 * no flapping storm, and "back online" is never said without "offline" before it.
 */
export class OfflineAlerts {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private startupTimer: NodeJS.Timeout | undefined;
  /** After stop() (the orchestrator closing its links and its database) nothing more is announced. */
  private stopped = false;

  constructor(
    private readonly bus: EventBus,
    private readonly repo: EventsRepository,
    private readonly agents: AgentsService,
    private readonly presence: AgentPresence,
    private readonly delayMs: number,
  ) {}

  offline(nodeId: string, at = Date.now()): void {
    if (this.stopped || !this.isAccepted(nodeId) || this.timers.has(nodeId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(nodeId);
      if (this.presence.isOnline(nodeId) || !this.isAccepted(nodeId) || this.repo.offlineNotice(nodeId)) return;
      this.announce(nodeId, at);
    }, this.delayMs);
    timer.unref();
    this.timers.set(nodeId, timer);
  }

  online(nodeId: string): void {
    clearTimeout(this.timers.get(nodeId));
    this.timers.delete(nodeId);
    if (this.stopped) return;
    const notice = this.repo.offlineNotice(nodeId);
    if (!notice || !this.repo.clearOfflineNotice(nodeId)) return;
    this.bus.raise({
      kind: 'agent.online',
      title: `${nodeId} is back online`,
      body: `${nodeId}${hostname(this.agents, nodeId)} reconnected after ${duration(Date.now() - Date.parse(notice.offline_at))} offline.`,
      node_id: nodeId,
    });
  }

  /**
   * Agents that were connected before a restart and have not come back within the
   * delay (plus three heartbeats) are announced then; agents long gone are not.
   */
  afterStart(graceMs: number): void {
    this.startupTimer = setTimeout(() => {
      const since = new Date(Date.now() - RECENTLY_SEEN_MS).toISOString();
      for (const [nodeId] of this.agents.acceptedTags()) {
        if (this.presence.isOnline(nodeId) || this.repo.offlineNotice(nodeId)) continue;
        const seen = this.agents.get(nodeId).last_seen;
        if (seen && seen >= since) this.announce(nodeId, Date.parse(seen));
      }
    }, this.delayMs + graceMs);
    this.startupTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    clearTimeout(this.startupTimer);
  }

  private announce(nodeId: string, offlineAt: number): void {
    this.repo.markOfflineNotified(nodeId, new Date(offlineAt).toISOString(), new Date().toISOString());
    this.bus.raise({
      kind: 'agent.offline',
      title: `${nodeId} is offline`,
      body: `${nodeId}${hostname(this.agents, nodeId)} has not been connected since ${new Date(offlineAt).toISOString()}.`,
      node_id: nodeId,
    });
  }

  private isAccepted(nodeId: string): boolean {
    try {
      return this.agents.require(nodeId).status === 'accepted';
    } catch {
      return false;
    }
  }
}

export function agentEventSource(bus: EventBus, agentEvents: AgentEvents, agents: AgentsService, offline: OfflineAlerts): void {
  const mismatchSaid = new Map<string, number>();
  agentEvents.on('enrolled', (nodeId) => {
    const agent = agents.get(nodeId);
    bus.raise({
      kind: 'agent.pending',
      title: `${nodeId} is waiting for approval`,
      body: `A new agent${hostname(agents, nodeId)} connected from ${agent.address ?? 'an unknown address'} with key ${agent.key_fingerprint}. Accept it if you expected it.`,
      node_id: nodeId,
    });
  });
  agentEvents.on('status', (nodeId, status) => {
    if (status === 'pending') return;
    const agent = agents.get(nodeId);
    bus.raise({
      kind: status === 'accepted' ? 'agent.accepted' : 'agent.rejected',
      title: `${nodeId} was ${status}`,
      body: `${agent.status_changed_by ?? 'Someone'} ${status} ${nodeId}${hostname(agents, nodeId)}.`,
      node_id: nodeId,
      actor: agent.status_changed_by,
    });
  });
  agentEvents.on('key_mismatch', (nodeId, seen) => {
    const last = mismatchSaid.get(nodeId);
    if (last !== undefined && Date.now() - last < KEY_MISMATCH_QUIET_MS) return;
    mismatchSaid.set(nodeId, Date.now());
    bus.raise({
      kind: 'agent.key_mismatch',
      title: `${nodeId} presented another key`,
      body: `A connection from ${seen.address ?? 'an unknown address'} claimed to be ${nodeId} with key ${seen.presented}, but ${nodeId} is pinned to ${seen.pinned}. It was refused. If the machine was reinstalled, delete the agent and accept it again; otherwise someone may be impersonating it.`,
      node_id: nodeId,
    });
  });
  agentEvents.on('offline', (nodeId) => offline.offline(nodeId));
  agentEvents.on('online', (nodeId) => offline.online(nodeId));
}

function countsLine(op: OperationSummary): string {
  const c = op.counts;
  const parts = [c.changed && `${c.changed} changed`, c.failed && `${c.failed} failed`, c.skipped && `${c.skipped} skipped`, c.unchanged && `${c.unchanged} unchanged`].filter(Boolean);
  return parts.length ? parts.join(', ') : `${c.total} resources`;
}

export function operationEventSource(bus: EventBus, finished: (listener: (op: OperationSummary) => void) => void): void {
  finished((op) => {
    if (op.kind !== 'apply' || op.status === 'skipped') return;
    const ok = op.status === 'succeeded';
    const modules = op.modules.map((m) => m.name).join(', ') || 'no modules';
    bus.raise({
      kind: ok ? 'apply.succeeded' : 'apply.failed',
      title: ok ? `Apply succeeded on ${op.node_id}: ${countsLine(op)}` : `Apply ${op.status} on ${op.node_id}${op.status === 'cancelled' ? '' : `: ${countsLine(op)}`}`,
      body: [`Modules: ${modules}${op.assignment ? ` (assignment ${op.assignment})` : ''}.`, op.message ?? ''].filter(Boolean).join('\n'),
      node_id: op.node_id,
      operation_id: op.operation_id,
      actor: op.actor === 'system' ? null : op.actor,
    });
  });
}

export function driftEventSource(
  bus: EventBus,
  on: (event: 'detected' | 'resolved', listener: (d: { node_id: string; drifted_count: number; checked_count: number; baseline_operation_id: string }) => void) => void,
): void {
  on('detected', (d) =>
    bus.raise({
      kind: 'drift.detected',
      title: `Drift on ${d.node_id}: ${d.drifted_count} of ${d.checked_count} resources`,
      body: `${d.node_id} no longer matches its last successful apply. Re-apply the baseline or look at the differences on its Drift tab.`,
      node_id: d.node_id,
      operation_id: d.baseline_operation_id,
    }),
  );
  on('resolved', (d) =>
    bus.raise({
      kind: 'drift.resolved',
      title: `${d.node_id} is back in sync`,
      body: `All ${d.checked_count} resources of ${d.node_id} match its last successful apply again.`,
      node_id: d.node_id,
      operation_id: d.baseline_operation_id,
    }),
  );
}

/** Operator, secret and terminal changes are told by their audit entries (one place, with the actor). */
export function auditEventSource(bus: EventBus, onRecorded: (listener: (e: AuditEntry) => void) => void): void {
  onRecorded((e) => {
    if (e.outcome !== 'success') return;
    const actor = e.actor_type === 'operator' ? e.actor : null;
    const by = actor ? ` by ${actor}` : '';
    const d = e.details ?? {};
    switch (e.action) {
      case 'operator.create':
      case 'setup.first_admin':
        bus.raise({ kind: 'operator.added', title: `Operator ${e.target ?? ''} added${by}`, body: `Role: ${String(d.role ?? 'admin')}.`, actor });
        return;
      case 'operator.remove':
        bus.raise({ kind: 'operator.removed', title: `Operator ${e.target ?? ''} removed${by}`, body: 'Their sessions and terminals were closed.', actor });
        return;
      case 'secret.create':
      case 'secret.update':
      case 'secret.delete': {
        const what = e.action === 'secret.create' ? 'created' : e.action === 'secret.delete' ? 'deleted' : d.rotated === true ? 'rotated' : 'updated';
        bus.raise({ kind: 'secret.changed', title: `Secret ${e.target ?? ''} ${what}${by}`, body: d.version !== undefined ? `Version ${String(d.version)}.` : '', actor });
        return;
      }
      case 'terminal.open':
        bus.raise({ kind: 'terminal.opened', title: `Terminal opened on ${e.target ?? ''}${by}`, body: `Session ${String(d.session_id ?? '')}.`, node_id: e.target ?? null, actor });
        return;
    }
  });
}
