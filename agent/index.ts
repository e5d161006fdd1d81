// The agent as a library: tests, benchmarks and the CLI (main.ts) all start it here.
export { startAgent, AgentError, type AgentOptions, type AgentHandle } from './agent.js';
export { resolveAgentConfig, ConfigError, SETTINGS, type AgentConfig, type AgentFlags } from './config.js';
export { defaultStateDir } from './state-dir.js';
// The link on its own, for tools that speak the real protocol without a whole agent (benchmarks).
export { AgentLink, type LinkOptions, type LinkState } from './link/link.js';
export type { Identity } from './identity.js';
