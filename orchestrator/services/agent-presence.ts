import { EventEmitter } from 'node:events';
import type { ApprovalStatus } from '../../common/protocol.js';

/** What happens to agents, for the hub (close links), the event bus and the live stream. */
export interface AgentEventMap {
  enrolled: [nodeId: string];
  /** A known node id presented another key; the link was refused. */
  key_mismatch: [nodeId: string, seen: { pinned: string; presented: string; address: string | null }];
  status: [nodeId: string, status: ApprovalStatus];
  deleted: [nodeId: string];
  online: [nodeId: string];
  offline: [nodeId: string];
  tags: [nodeId: string];
}

export class AgentEvents extends EventEmitter<AgentEventMap> {}

/**
 * Which agents have a live link, and when each was last heard from. Kept in
 * memory as epoch milliseconds (the hub touches it on every frame, terminal bytes
 * included), formatted only when read; the hub flushes last-seen times to the store.
 */
export class AgentPresence {
  private readonly online = new Set<string>();
  private readonly seen = new Map<string, number>();
  private readonly dirty = new Set<string>();

  constructor(private readonly events: AgentEvents) {}

  connected(nodeId: string, at = Date.now()): void {
    this.online.add(nodeId);
    this.touch(nodeId, at);
    this.events.emit('online', nodeId);
  }

  disconnected(nodeId: string, at = Date.now()): void {
    if (!this.online.delete(nodeId)) return;
    this.touch(nodeId, at);
    this.events.emit('offline', nodeId);
  }

  touch(nodeId: string, at = Date.now()): void {
    this.seen.set(nodeId, at);
    this.dirty.add(nodeId);
  }

  isOnline(nodeId: string): boolean {
    return this.online.has(nodeId);
  }

  onlineCount(): number {
    return this.online.size;
  }

  lastSeen(nodeId: string): string | undefined {
    const at = this.seen.get(nodeId);
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  forget(nodeId: string): void {
    this.online.delete(nodeId);
    this.seen.delete(nodeId);
    this.dirty.delete(nodeId);
  }

  /** Last-seen times changed since the previous call, to write in one transaction. */
  takeDirty(): [string, string][] {
    const out: [string, string][] = [];
    for (const id of this.dirty) {
      const at = this.seen.get(id);
      if (at !== undefined) out.push([id, new Date(at).toISOString()]);
    }
    this.dirty.clear();
    return out;
  }
}
