import type { Db } from './db/database.js';
import type { ResolvedConfig } from './config.js';
import type { AgentHub } from './hub/agent-hub.js';
import type { AgentEvents, AgentPresence } from './services/agent-presence.js';
import type { AgentsService } from './services/agents.js';
import type { AuditService } from './services/audit.js';
import type { AuthService } from './services/auth.js';
import type { DiscoveryService } from './services/discovery.js';
import type { MetricsService } from './services/metrics.js';
import type { ModulesService } from './services/modules.js';
import type { DriftService } from './services/drift.js';
import type { AssignmentsService } from './services/assignments.js';
import type { OperationsService } from './services/operations.js';
import type { StateRunner } from './services/state-runner.js';
import type { OperatorsService } from './services/operators.js';
import type { SecretsService } from './services/secrets.js';
import type { TerminalsService } from './services/terminals.js';
import type { EventBus } from './services/event-bus.js';
import type { NotificationsService } from './services/notifications.js';
import type { ChannelsService } from './services/channels.js';
import type { DeliveryQueue } from './services/delivery-queue.js';
import type { MaintenanceService } from './services/maintenance.js';
import type { LiveStream } from './services/live-stream.js';
import type { OfflineAlerts } from './services/fleet-event-sources.js';

/** Everything route plugins need, built once per orchestrator. */
export interface Services {
  config: ResolvedConfig;
  db: Db;
  audit: AuditService;
  auth: AuthService;
  operators: OperatorsService;
  agentEvents: AgentEvents;
  presence: AgentPresence;
  agents: AgentsService;
  metrics: MetricsService;
  hub: AgentHub;
  discovery: DiscoveryService;
  terminals: TerminalsService;
  modules: ModulesService;
  secrets: SecretsService;
  runner: StateRunner;
  operations: OperationsService;
  drift: DriftService;
  assignments: AssignmentsService;
  bus: EventBus;
  notifications: NotificationsService;
  channels: ChannelsService;
  deliveries: DeliveryQueue;
  maintenance: MaintenanceService;
  live: LiveStream;
  offlineAlerts: OfflineAlerts;
  startedAt: number;
  tlsFingerprint: string | null;
  /** The port actually listened on (known after listen; port 0 picks one). */
  listenPort: number;
}
