// Sends state runs to agents, one at a time per agent (the agent also runs them one at a
// time; queueing here too keeps "running" in the API true), and collects the per-resource
// reports until state_done. A run ends early, never hangs: when the agent's link goes, or
// when the agent says nothing for the run's idle limit.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { StateResourceResult, StateRunMessage } from '../../common/protocol.js';
import type { StateSink } from '../hub/agent-hub.js';
import type { StateReport } from '../hub/link-messages.js';

export interface RunOutcome {
  ok: boolean;
  /** agent_offline, agent_gone, timeout, too_large, or what the agent said (plan_stale, bad_run...). */
  code?: string;
  message?: string;
  results: StateResourceResult[];
}

export type RunRequest = Omit<StateRunMessage, 'type' | 'run_id'>;

export interface RunLink {
  isLinked(nodeId: string): boolean;
  sendTo(nodeId: string, message: StateRunMessage): boolean;
}

interface ActiveRun {
  nodeId: string;
  results: StateResourceResult[];
  finish: (outcome: RunOutcome) => void;
  touch: () => void;
}

export interface EnqueueOptions {
  /** Called when the run's turn comes; return null to drop it (cancelled while waiting). Builds the message late so secret values live briefly. */
  build: () => RunRequest | null;
  /** Called just before the run is sent (an operation becomes running). */
  onStart?: () => void;
  /** How long the agent may stay silent before the run is given up. */
  idleTimeoutMs: number;
}

export class StateRunner implements StateSink {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly active = new Map<string, ActiveRun>();
  private stopped = false;

  constructor(
    private readonly link: RunLink,
    private log: FastifyBaseLogger | undefined = undefined,
  ) {}

  setLogger(log: FastifyBaseLogger): void {
    this.log = log;
  }

  /** Queues a run behind the agent's earlier ones; resolves when it ended, however it ended. */
  enqueue(nodeId: string, options: EnqueueOptions): Promise<RunOutcome | null> {
    const run = (this.tails.get(nodeId) ?? Promise.resolve()).then(() => this.execute(nodeId, options));
    const tail = run.catch(() => undefined).finally(() => {
      // The last run of an agent's chain drops the chain, so idle agents hold nothing.
      if (this.tails.get(nodeId) === tail) this.tails.delete(nodeId);
    });
    this.tails.set(nodeId, tail);
    return run;
  }

  private execute(nodeId: string, options: EnqueueOptions): Promise<RunOutcome | null> {
    if (this.stopped) return Promise.resolve({ ok: false, code: 'stopping', message: 'the orchestrator stopped before the run was sent', results: [] });
    let request: RunRequest | null;
    try {
      request = options.build();
    } catch (err) {
      return Promise.resolve({ ok: false, code: 'build_failed', message: err instanceof Error ? err.message : String(err), results: [] });
    }
    if (!request) return Promise.resolve(null);
    if (!this.link.isLinked(nodeId)) return Promise.resolve({ ok: false, code: 'agent_offline', message: 'the agent is offline', results: [] });
    const runId = randomUUID();
    const message: StateRunMessage = { type: 'state_run', run_id: runId, ...request };
    return new Promise<RunOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (outcome: RunOutcome) => {
        clearTimeout(timer);
        this.active.delete(runId);
        resolve(outcome);
      };
      const touch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => finish({ ok: false, code: 'timeout', message: `the agent sent nothing for ${Math.round(options.idleTimeoutMs / 1000)} s`, results: [] }), options.idleTimeoutMs);
        timer.unref();
      };
      this.active.set(runId, { nodeId, results: [], finish, touch });
      options.onStart?.();
      let sent: boolean;
      try {
        sent = this.link.sendTo(nodeId, message);
      } catch (err) {
        return finish({ ok: false, code: 'send_failed', message: err instanceof Error ? err.message : String(err), results: [] });
      }
      if (!sent) return finish({ ok: false, code: 'agent_offline', message: 'the agent went offline before the run was sent', results: [] });
      touch();
    });
  }

  message(nodeId: string, report: StateReport): void {
    const run = this.active.get(report.run_id);
    if (!run || run.nodeId !== nodeId) return void this.log?.warn({ nodeId, run_id: report.run_id }, 'a state report for no run of this agent');
    run.touch();
    if (report.type === 'state_result') {
      run.results.push(report.result);
      return;
    }
    if (report.ok && report.results !== run.results.length) {
      return run.finish({ ok: false, code: 'incomplete', message: `the agent reported ${run.results.length} of ${report.results} results`, results: run.results });
    }
    run.finish({
      ok: report.ok,
      ...(report.code !== undefined ? { code: report.code } : {}),
      ...(report.message !== undefined ? { message: report.message } : {}),
      results: run.results,
    });
  }

  agentGone(nodeId: string): void {
    for (const run of [...this.active.values()]) {
      if (run.nodeId === nodeId) run.finish({ ok: false, code: 'agent_gone', message: 'the agent disconnected during the run', results: run.results });
    }
  }

  /** Ends every run in progress (orchestrator stopping). */
  stop(): void {
    this.stopped = true;
    for (const run of [...this.active.values()]) run.finish({ ok: false, code: 'stopping', message: 'the orchestrator stopped during the run', results: run.results });
  }
}
