import { APPROVAL_TRANSITIONS, type ApprovalStatus, type Attributes } from '../../common/protocol.js';
import { TAG_KEY_PATTERN, type Agent, type AgentMaintenance, type AgentListQuery, type TagSummary } from '../../common/schemas/agents.js';
import type { List } from '../../common/schemas/shared.js';
import { compileSelector, SelectorError } from '../../common/selector.js';
import type { MetricsLatest } from '../../common/schemas/metrics.js';
import type { Db } from '../db/database.js';
import { BadRequest, Conflict, NotFound } from '../http/errors.js';
import type { AgentRow, AgentsRepository } from '../repositories/agents.js';
import type { AgentEvents, AgentPresence } from './agent-presence.js';
import { decodeCursor, encodeCursor } from './cursor.js';

export const MAX_TAGS_PER_AGENT = 100;
const TAG_KEY = new RegExp(TAG_KEY_PATTERN);

export interface MetricsLookup {
  latest(nodeId: string): MetricsLatest | undefined;
}

export interface EnrollRequest {
  node_id: string;
  public_key: string;
  key_fingerprint: string;
  hostname: string;
  agent_version: string;
  address: string | null;
}

export type EnrollResult = { outcome: 'ok'; status: ApprovalStatus; created: boolean } | { outcome: 'key_mismatch'; pinned: string };

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** The rules about agents: approval transitions, what may be deleted, tags, what a list shows. */
/** A selector's matcher, or a 400 naming the field and where the selector is wrong. */
export function compileOrRefuse(selector: string, field: string): (tags: Record<string, string>) => boolean {
  try {
    return compileSelector(selector);
  } catch (err) {
    if (err instanceof SelectorError) throw new BadRequest(`selector: ${err.message}`, [{ field, message: err.message }], 'invalid-selector');
    throw err;
  }
}

export class AgentsService {
  constructor(
    private readonly db: Db,
    private readonly repo: AgentsRepository,
    private readonly presence: AgentPresence,
    readonly events: AgentEvents,
    private readonly metrics: MetricsLookup,
  ) {}

  /** Which maintenance window covers an agent now (wired to MaintenanceService, which is built after this). */
  private maintenanceFor: (nodeId: string, tags: Record<string, string>) => AgentMaintenance | null = () => null;

  setMaintenanceLookup(lookup: (nodeId: string, tags: Record<string, string>) => AgentMaintenance | null): void {
    this.maintenanceFor = lookup;
  }

  require(nodeId: string): AgentRow {
    const row = this.repo.get(nodeId);
    if (!row) throw new NotFound(`agent ${nodeId} does not exist`, 'agent-not-found');
    return row;
  }

  count(): number {
    return this.repo.count();
  }

  private toAgent(row: AgentRow, tags: Record<string, string>): Agent {
    const a = JSON.parse(row.attributes) as Partial<Attributes>;
    const latest = this.metrics.latest(row.node_id);
    return {
      node_id: row.node_id,
      status: row.status,
      online: this.presence.isOnline(row.node_id),
      last_seen: this.presence.lastSeen(row.node_id) ?? row.last_seen,
      first_seen: row.first_seen,
      status_changed_at: row.status_changed_at,
      status_changed_by: row.status_changed_by,
      key_fingerprint: row.key_fingerprint,
      agent_version: row.agent_version,
      address: row.address,
      tags,
      attributes: {
        hostname: str(a.hostname) ?? row.hostname,
        os: str(a.os),
        distribution: str(a.distribution),
        distribution_version: str(a.distribution_version),
        kernel: str(a.kernel),
        arch: str(a.arch),
        ips: Array.isArray(a.ips) ? a.ips.filter((ip): ip is string => typeof ip === 'string') : [],
        cpu_count: typeof a.cpu_count === 'number' ? a.cpu_count : null,
        memory_bytes: typeof a.memory_bytes === 'number' ? a.memory_bytes : null,
      },
      metrics: latest
        ? { ts: latest.sample.ts, cpu_percent: latest.sample.cpu_percent, mem_used: latest.sample.mem_used, mem_total: latest.sample.mem_total, load1: latest.sample.load1 }
        : null,
      maintenance: this.maintenanceFor(row.node_id, tags),
    };
  }

  get(nodeId: string): Agent {
    return this.toAgent(this.require(nodeId), this.repo.tags(nodeId));
  }

  /** Filters by status in SQL, by online state and selector in memory (a small fleet's worth), then pages by node_id. */
  list(q: AgentListQuery): List<Agent> {
    const matches = q.selector ? compileOrRefuse(q.selector, 'querystring.selector') : () => true;
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? '' : String(decodeCursor(q.cursor, 'after'));
    const tagsByAgent = this.repo.tagsByAgent();
    const items: Agent[] = [];
    let more = false;
    for (const row of this.repo.all(q.status)) {
      if (row.node_id <= after) continue;
      if (q.online !== undefined && this.presence.isOnline(row.node_id) !== q.online) continue;
      const tags = tagsByAgent.get(row.node_id) ?? {};
      if (!matches(tags)) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(this.toAgent(row, tags));
    }
    return { items, next_cursor: more ? encodeCursor({ after: items[items.length - 1]!.node_id }) : null };
  }

  /** Every accepted agent with its tags, read once for matching several selectors. */
  acceptedTags(): [nodeId: string, tags: Record<string, string>][] {
    const tagsByAgent = this.repo.tagsByAgent();
    return this.repo.all('accepted').map((row) => [row.node_id, tagsByAgent.get(row.node_id) ?? {}]);
  }

  /** Accepted agents whose tags the selector matches now, by node id. */
  matching(selector: string, field = 'body.selector', fleet = this.acceptedTags()): string[] {
    const matches = compileOrRefuse(selector, field);
    return fleet.filter(([, tags]) => matches(tags)).map(([nodeId]) => nodeId);
  }

  /** First contact records the agent as pending and pins its key; a different key for a known id is refused. */
  enroll(req: EnrollRequest, now = new Date().toISOString()): EnrollResult {
    const result = this.db.transaction((): EnrollResult => {
      const existing = this.repo.get(req.node_id);
      if (!existing) {
        this.repo.insertPending(req, now);
        return { outcome: 'ok', status: 'pending', created: true };
      }
      if (existing.public_key !== req.public_key) return { outcome: 'key_mismatch', pinned: existing.key_fingerprint };
      this.repo.recordConnect(req, now);
      return { outcome: 'ok', status: existing.status, created: false };
    })();
    if (result.outcome === 'ok' && result.created) this.events.emit('enrolled', req.node_id);
    if (result.outcome === 'key_mismatch') this.events.emit('key_mismatch', req.node_id, { pinned: result.pinned, presented: req.key_fingerprint, address: req.address });
    return result;
  }

  changeStatus(nodeId: string, status: ApprovalStatus, by: string): Agent {
    this.db.transaction(() => {
      const row = this.require(nodeId);
      if (row.status === status) throw new Conflict(`agent ${nodeId} is already ${status}`, 'status-unchanged');
      if (!APPROVAL_TRANSITIONS[row.status].includes(status)) {
        throw new Conflict(`agent ${nodeId} cannot go from ${row.status} to ${status}`, 'illegal-transition');
      }
      this.repo.setStatus(nodeId, status, by, new Date().toISOString());
    })();
    this.events.emit('status', nodeId, status);
    return this.get(nodeId);
  }

  remove(nodeId: string): AgentRow {
    const row = this.db.transaction(() => {
      const existing = this.require(nodeId);
      if (existing.status !== 'rejected') {
        throw new Conflict(`agent ${nodeId} is ${existing.status}; only a rejected agent's record can be deleted (reject it first)`, 'agent-not-rejected');
      }
      this.repo.delete(nodeId);
      return existing;
    })();
    this.presence.forget(nodeId);
    this.events.emit('deleted', nodeId);
    return row;
  }

  attributes(nodeId: string): { node_id: string; updated_at: string | null; attributes: Record<string, unknown> } {
    const row = this.require(nodeId);
    return { node_id: nodeId, updated_at: row.attributes_at, attributes: JSON.parse(row.attributes) as Record<string, unknown> };
  }

  /** From the hub: stores attributes only when they differ from what is stored. */
  recordAttributes(nodeId: string, attributes: Record<string, unknown>): boolean {
    const json = JSON.stringify(attributes);
    const row = this.repo.get(nodeId);
    if (!row || row.attributes === json) return false;
    this.repo.setAttributes(nodeId, json, new Date().toISOString());
    return true;
  }

  flushLastSeen(entries: [string, string][]): void {
    if (entries.length) this.repo.flushLastSeen(entries);
  }

  tags(nodeId: string): Record<string, string> {
    this.require(nodeId);
    return this.repo.tags(nodeId);
  }

  replaceTags(nodeId: string, tags: Record<string, string>): Record<string, string> {
    const bad = Object.keys(tags).filter((k) => !TAG_KEY.test(k));
    if (bad.length) {
      throw new BadRequest(
        `tag keys must match [a-z0-9][a-z0-9._/-]{0,62}: ${bad.map((k) => JSON.stringify(k)).join(', ')}`,
        bad.map((k) => ({ field: `body.${k}`, message: 'tag key must match [a-z0-9][a-z0-9._/-]{0,62}' })),
        'invalid-tag-key',
      );
    }
    const result = this.db.transaction(() => {
      this.require(nodeId);
      this.repo.replaceTags(nodeId, tags);
      return this.repo.tags(nodeId);
    })();
    this.events.emit('tags', nodeId);
    return result;
  }

  setTag(nodeId: string, key: string, value: string): Record<string, string> {
    const result = this.db.transaction(() => {
      const current = this.repo.tags(this.require(nodeId).node_id);
      if (!(key in current) && Object.keys(current).length >= MAX_TAGS_PER_AGENT) {
        throw new Conflict(`agent ${nodeId} has ${MAX_TAGS_PER_AGENT} tags already`, 'too-many-tags');
      }
      this.repo.setTag(nodeId, key, value);
      return this.repo.tags(nodeId);
    })();
    this.events.emit('tags', nodeId);
    return result;
  }

  deleteTag(nodeId: string, key: string): Record<string, string> {
    const result = this.db.transaction(() => {
      this.require(nodeId);
      if (!this.repo.deleteTag(nodeId, key)) throw new NotFound(`agent ${nodeId} has no tag ${key}`, 'tag-not-found');
      return this.repo.tags(nodeId);
    })();
    this.events.emit('tags', nodeId);
    return result;
  }

  tagSummary(): TagSummary[] {
    const out = new Map<string, TagSummary>();
    for (const row of this.repo.tagSummary()) {
      let entry = out.get(row.key);
      if (!entry) out.set(row.key, (entry = { key: row.key, agents: 0, values: [] }));
      entry.values.push({ value: row.value, agents: row.agents });
      entry.agents += row.agents;
    }
    return [...out.values()];
  }
}
