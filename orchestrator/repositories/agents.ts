import type { ApprovalStatus } from '../../common/protocol.js';
import type { Db } from '../db/database.js';

export interface AgentRow {
  node_id: string;
  public_key: string;
  key_fingerprint: string;
  status: ApprovalStatus;
  hostname: string | null;
  agent_version: string | null;
  address: string | null;
  first_seen: string;
  last_seen: string | null;
  status_changed_at: string | null;
  status_changed_by: string | null;
  attributes: string;
  attributes_at: string | null;
}

export interface NewAgent {
  node_id: string;
  public_key: string;
  key_fingerprint: string;
  hostname: string;
  agent_version: string;
  address: string | null;
}

export class AgentsRepository {
  private readonly selectOne;
  private readonly selectAll;
  private readonly selectByStatus;
  private readonly insertStmt;
  private readonly seenStmt;
  private readonly lastSeenStmt;
  private readonly statusStmt;
  private readonly deleteStmt;
  private readonly attributesStmt;
  private readonly tagsOf;
  private readonly allTags;
  private readonly clearTags;
  private readonly upsertTag;
  private readonly deleteTagStmt;
  private readonly tagSummaryStmt;
  private readonly countStmt;

  constructor(private readonly db: Db) {
    this.selectOne = db.prepare<[string], AgentRow>('SELECT * FROM agents WHERE node_id = ?');
    this.selectAll = db.prepare<[], AgentRow>('SELECT * FROM agents ORDER BY node_id');
    this.selectByStatus = db.prepare<[string], AgentRow>('SELECT * FROM agents WHERE status = ? ORDER BY node_id');
    this.insertStmt = db.prepare(
      `INSERT INTO agents (node_id, public_key, key_fingerprint, status, hostname, agent_version, address, first_seen, last_seen)
       VALUES (@node_id, @public_key, @key_fingerprint, 'pending', @hostname, @agent_version, @address, @now, @now)`,
    );
    this.seenStmt = db.prepare(
      'UPDATE agents SET hostname = @hostname, agent_version = @agent_version, address = @address, last_seen = @now WHERE node_id = @node_id',
    );
    this.lastSeenStmt = db.prepare('UPDATE agents SET last_seen = ? WHERE node_id = ?');
    this.statusStmt = db.prepare('UPDATE agents SET status = ?, status_changed_at = ?, status_changed_by = ? WHERE node_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM agents WHERE node_id = ?');
    this.attributesStmt = db.prepare('UPDATE agents SET attributes = ?, attributes_at = ? WHERE node_id = ?');
    this.tagsOf = db.prepare<[string], { key: string; value: string }>('SELECT key, value FROM agent_tags WHERE node_id = ? ORDER BY key');
    this.allTags = db.prepare<[], { node_id: string; key: string; value: string }>('SELECT node_id, key, value FROM agent_tags ORDER BY node_id, key');
    this.clearTags = db.prepare('DELETE FROM agent_tags WHERE node_id = ?');
    this.upsertTag = db.prepare(
      'INSERT INTO agent_tags (node_id, key, value) VALUES (?, ?, ?) ON CONFLICT (node_id, key) DO UPDATE SET value = excluded.value',
    );
    this.deleteTagStmt = db.prepare('DELETE FROM agent_tags WHERE node_id = ? AND key = ?');
    this.tagSummaryStmt = db.prepare<[], { key: string; value: string; agents: number }>(
      'SELECT key, value, count(*) AS agents FROM agent_tags GROUP BY key, value ORDER BY key, value',
    );
    this.countStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM agents');
  }

  get(nodeId: string): AgentRow | undefined {
    return this.selectOne.get(nodeId);
  }

  all(status?: ApprovalStatus): AgentRow[] {
    return status ? this.selectByStatus.all(status) : this.selectAll.all();
  }

  count(): number {
    return this.countStmt.get()!.n;
  }

  insertPending(agent: NewAgent, now: string): void {
    this.insertStmt.run({ ...agent, now });
  }

  recordConnect(agent: Omit<NewAgent, 'public_key' | 'key_fingerprint'>, now: string): void {
    this.seenStmt.run({ ...agent, now });
  }

  /** Writes many last-seen times in one transaction (the hub batches heartbeats). */
  flushLastSeen(entries: Iterable<[string, string]>): void {
    this.db.transaction(() => {
      for (const [nodeId, at] of entries) this.lastSeenStmt.run(at, nodeId);
    })();
  }

  setStatus(nodeId: string, status: ApprovalStatus, by: string, at: string): void {
    this.statusStmt.run(status, at, by, nodeId);
  }

  delete(nodeId: string): boolean {
    return this.deleteStmt.run(nodeId).changes > 0;
  }

  setAttributes(nodeId: string, json: string, at: string): void {
    this.attributesStmt.run(json, at, nodeId);
  }

  tags(nodeId: string): Record<string, string> {
    return Object.fromEntries(this.tagsOf.all(nodeId).map((t) => [t.key, t.value]));
  }

  /** Every agent's tags at once, for list pages and selector matching. */
  tagsByAgent(): Map<string, Record<string, string>> {
    const out = new Map<string, Record<string, string>>();
    for (const t of this.allTags.all()) {
      let tags = out.get(t.node_id);
      if (!tags) out.set(t.node_id, (tags = {}));
      tags[t.key] = t.value;
    }
    return out;
  }

  replaceTags(nodeId: string, tags: Record<string, string>): void {
    this.db.transaction(() => {
      this.clearTags.run(nodeId);
      for (const [k, v] of Object.entries(tags)) this.upsertTag.run(nodeId, k, v);
    })();
  }

  setTag(nodeId: string, key: string, value: string): void {
    this.upsertTag.run(nodeId, key, value);
  }

  deleteTag(nodeId: string, key: string): boolean {
    return this.deleteTagStmt.run(nodeId, key).changes > 0;
  }

  tagSummary(): { key: string; value: string; agents: number }[] {
    return this.tagSummaryStmt.all();
  }
}
