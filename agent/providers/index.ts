// Resource providers: the agent side of plan and apply. Not wired into the link yet.
export * from './types.js';
export { ProviderContext, DryRunViolation, type ContextOptions } from './context.js';
export { ProviderRegistry, defaultRegistry } from './registry.js';
export { plan, apply, dependencyOrder, type EngineResource, type PlanResult, type ApplyResult, type PlanStatus, type ApplyStatus } from './engine.js';
