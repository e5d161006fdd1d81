import { startAgentProcess } from '../../helpers/agent-process.js';

export interface RunningAgent {
  nodeId: string;
  /** SHA256:... of the agent key, from the agent's own start log line. */
  keyFingerprint: string;
  stateDir: string;
  /** Everything the agent printed so far (JSON lines). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs the real `corral-agent` from source against an orchestrator, with its own state
 * directory, metrics every second and no discovery listener (the same helper the
 * integration tests use).
 */
export async function startAgent(options: { orchestratorUrl: string; nodeId: string; metricsIntervalS?: number }): Promise<RunningAgent> {
  const agent = await startAgentProcess({ orchestratorUrl: options.orchestratorUrl, nodeId: options.nodeId, metricsIntervalS: options.metricsIntervalS ?? 1 });
  return { nodeId: options.nodeId, keyFingerprint: agent.keyFingerprint, stateDir: agent.stateDir, output: agent.output, stop: agent.dispose };
}
