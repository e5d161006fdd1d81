export { startOrchestrator, type OrchestratorHandle } from './start.js';
export { resolveConfig, type OrchestratorConfig, type ResolvedConfig, DEFAULT_PORT, defaultDataDir } from './config.js';
