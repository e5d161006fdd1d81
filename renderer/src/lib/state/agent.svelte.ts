import type { Agent, AgentAttributes } from '../api/client.js';
import { loadAgent, loadAttributes } from '../services/agents.service.js';
import { Poller } from '../utils/poller.js';
import { followLive, liveEvents } from './live-events.svelte.js';

export const AGENT_REFRESH_MS = 5000;
/** Attributes change rarely; they are read again every this many refreshes (and until the agent has sent any). */
const ATTRIBUTES_EVERY = 6;

/** One agent's record and attributes for its page, kept fresh while the page is visible. */
export class AgentState {
  agent = $state<Agent | null>(null);
  attributes = $state<AgentAttributes | null>(null);
  /** The first read finished (found or not). */
  loaded = $state(false);
  /** No agent has this node id (never had, or deleted). */
  missing = $state(false);

  private readonly poller = new Poller(() => this.load(), AGENT_REFRESH_MS);
  /** Its own live messages (and maintenance windows changing) show at once, not at the next read. */
  private stopLive: (() => void) | undefined;
  private failing = false;
  private reads = 0;

  constructor(readonly nodeId: string) {}

  start(): void {
    this.poller.start();
    this.stopLive = followLive({
      triggers: [
        (soon) =>
          liveEvents.on('agent', (m) => {
            if (m.node_id === this.nodeId) soon();
          }),
        (soon) => liveEvents.on('maintenance', soon),
      ],
      refresh: () => void this.poller.now(),
    });
  }

  stop(): void {
    this.poller.stop();
    this.stopLive?.();
  }

  refresh(): Promise<void> {
    this.failing = false;
    return this.poller.now();
  }

  /** The record an action answered with (approval change). */
  set(agent: Agent): void {
    if (agent.node_id === this.nodeId) this.agent = agent;
  }

  setTags(tags: Record<string, string>): void {
    if (this.agent) this.agent = { ...this.agent, tags };
  }

  private async load(): Promise<void> {
    const agent = await loadAgent(this.nodeId, { quiet: this.failing });
    if (agent === undefined) {
      this.failing = true;
      return;
    }
    this.failing = false;
    this.loaded = true;
    this.missing = agent === null;
    this.agent = agent;
    if (!agent) return;
    const stale = !this.attributes || this.attributes.updated_at === null || Object.keys(this.attributes.attributes).length === 0;
    if (stale || this.reads % ATTRIBUTES_EVERY === 0) this.attributes = (await loadAttributes(this.nodeId, { quiet: this.reads > 0 })) ?? this.attributes;
    this.reads++;
  }
}
