// The one typed client of the management API. Every request and response type
// comes from the TypeBox schemas the orchestrator validates with (common/schemas).
import type { Static } from 'typebox';
import type {
  Agent,
  AgentListQuery,
  ApprovalRequest,
  AttributesResponse,
  ReplaceTagsRequest,
  TagsListResponse,
  TagsResponse,
  TagSummary,
} from '../../../../common/schemas/agents.js';
import type { AuditChainReport, AuditEvent, AuditPruneResponse, AuditQuery, AuditRetention } from '../../../../common/schemas/audit.js';
import type {
  AddKeyRequest,
  ChallengeRequest,
  ChallengeResponse,
  SessionResponse,
  SetupRequest,
  VerifyRequest,
  WhoAmIResponse,
} from '../../../../common/schemas/auth.js';
import type { DiscoveredAgent, DiscoverRequest, DiscoverResponse } from '../../../../common/schemas/discovery.js';
import type { MetricsHistory, MetricsLatest, MetricsPoint, MetricsQuery } from '../../../../common/schemas/metrics.js';
import type { ModuleDetails, ModuleSummary, ModuleUploadResponse, UploadResult } from '../../../../common/schemas/modules.js';
import type { CreateSecretRequest, SecretMetadata, UpdateSecretRequest } from '../../../../common/schemas/secrets.js';
import type { CreateOperatorRequest, Operator } from '../../../../common/schemas/operators.js';
import type { List, ListQuery } from '../../../../common/schemas/shared.js';
import type { StatusResponse } from '../../../../common/schemas/status.js';
import type { Assignment, AssignmentCreate, AssignmentRunRequest, BatchSummary } from '../../../../common/schemas/assignments.js';
import type {
  AgentOperationsQuery,
  BelievedState,
  DriftRecord,
  DriftSummary,
  Operation,
  OperationOutput,
  OperationsQuery,
  OperationSummary,
  StateRunRequest,
} from '../../../../common/schemas/state.js';
import type { OpenTerminalRequest, OpenTerminalResponse, StreamControl, TerminalListQuery, TerminalSession } from '../../../../common/schemas/terminals.js';
import type { Channel, ChannelCreate, ChannelUpdate, Delivery, DeliveryQuery, SendOutcome } from '../../../../common/schemas/channels.js';
import type { Notification, NotificationList, NotificationQuery, ReadResult } from '../../../../common/schemas/events.js';
import type { MaintenanceWindow, WindowCreate, WindowQuery, WindowUpdate } from '../../../../common/schemas/maintenance.js';
import { API_PREFIX } from '../../../../common/version.js';
import { ApiError, NetworkError, problemFrom } from './errors.js';

export type ListParams = Static<typeof ListQuery>;
export type AuditPruneResult = Static<typeof AuditPruneResponse>;
export type AuditChainResult = Static<typeof AuditChainReport>;
export type AgentAttributes = Static<typeof AttributesResponse>;
export type AgentTags = Static<typeof TagsResponse>;
export type TagList = Static<typeof TagsListResponse>;
export type Discovery = Static<typeof DiscoverResponse>;
export type ApprovalStatus = Agent['status'];
export type {
  Agent,
  Channel,
  ChannelCreate,
  ChannelUpdate,
  Delivery,
  DeliveryQuery,
  MaintenanceWindow,
  Notification,
  NotificationList,
  NotificationQuery,
  ReadResult,
  SendOutcome,
  WindowCreate,
  WindowQuery,
  WindowUpdate,
  AgentListQuery,
  AgentOperationsQuery,
  Assignment,
  AssignmentCreate,
  AssignmentRunRequest,
  BatchSummary,
  BelievedState,
  DriftRecord,
  DriftSummary,
  Operation,
  OperationOutput,
  OperationsQuery,
  OperationSummary,
  StateRunRequest,
  AuditEvent,
  AuditQuery,
  AuditRetention,
  ChallengeResponse,
  DiscoveredAgent,
  DiscoverRequest,
  MetricsHistory,
  MetricsLatest,
  MetricsPoint,
  MetricsQuery,
  ModuleDetails,
  ModuleSummary,
  ModuleUploadResponse,
  Operator,
  SecretMetadata,
  UploadResult,
  SessionResponse,
  OpenTerminalRequest,
  OpenTerminalResponse,
  StatusResponse,
  StreamControl,
  TagSummary,
  TerminalListQuery,
  TerminalSession,
  WhoAmIResponse,
};
export type TerminalState = TerminalSession['state'];

type QueryValue = string | number | boolean | null | undefined;

interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
}

export class ApiClient {
  constructor(
    /** Reads the current session token, if any. */
    private readonly token: () => string | null,
    /** Relative to the page, so a reverse proxy may serve Corral under a sub-path. */
    private readonly base = API_PREFIX.replace(/^\//, ''),
  ) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = response.status === 204 ? '' : await response.text();
    return (text ? parseBody(text) : undefined) as T;
  }

  /**
   * An open text/event-stream answer (GET /events), for the caller to read from `body`;
   * errors still arrive as ApiError. `signal` aborts the request and the stream.
   */
  stream(path: string, signal: AbortSignal): Promise<Response> {
    return this.send('GET', path, { signal }, 'text/event-stream');
  }

  /** A non-JSON answer (a transcript file) as a Blob; errors still arrive as ApiError. */
  async blob(path: string): Promise<Blob> {
    return (await this.send('GET', path, {}, '*/*')).blob();
  }

  private async send(method: string, path: string, options: RequestOptions, accept = 'application/json, application/problem+json'): Promise<Response> {
    const url = new URL(this.base + path, document.baseURI);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept };
    const token = this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, cache: 'no-store', signal: options.signal });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new NetworkError(url.origin + url.pathname, err);
    }
    if (!response.ok) {
      const text = await response.text();
      throw new ApiError(problemFrom(response.status, response.statusText, text ? parseBody(text) : undefined), token !== null);
    }
    return response;
  }

  // status
  status = () => this.request<StatusResponse>('GET', '/status');

  // first admin and authentication
  setup = (body: SetupRequest) => this.request<Operator>('POST', '/setup', { body });
  challenge = (body: ChallengeRequest) => this.request<ChallengeResponse>('POST', '/auth/challenge', { body });
  verify = (body: VerifyRequest) => this.request<SessionResponse>('POST', '/auth/verify', { body });
  whoami = () => this.request<WhoAmIResponse>('GET', '/auth/session');
  signOut = () => this.request<void>('DELETE', '/auth/session');
  addOwnKey = (body: AddKeyRequest) => this.request<Operator>('POST', '/auth/keys', { body });
  removeOwnKey = (fingerprint: string) => this.request<Operator>('DELETE', '/auth/keys', { query: { fingerprint } });

  // operators
  listOperators = (query: ListParams = {}) => this.request<List<Operator>>('GET', '/operators', { query });
  getOperator = (operatorId: string) => this.request<Operator>('GET', `/operators/${encodeURIComponent(operatorId)}`);
  createOperator = (body: CreateOperatorRequest) => this.request<Operator>('POST', '/operators', { body });
  removeOperator = (operatorId: string) => this.request<void>('DELETE', `/operators/${encodeURIComponent(operatorId)}`);

  // audit
  listAudit = (query: AuditQuery = {}) => this.request<List<AuditEvent>>('GET', '/audit', { query });
  pruneAudit = (before: string) => this.request<AuditPruneResult>('DELETE', '/audit', { query: { before } });
  getAuditRetention = () => this.request<AuditRetention>('GET', '/audit/retention');
  setAuditRetention = (body: AuditRetention) => this.request<AuditRetention>('PUT', '/audit/retention', { body });
  verifyAudit = () => this.request<AuditChainResult>('GET', '/audit/verify');

  // agents
  listAgents = (query: AgentListQuery = {}) => this.request<List<Agent>>('GET', '/agents', { query });
  getAgent = (nodeId: string) => this.request<Agent>('GET', `/agents/${encodeURIComponent(nodeId)}`);
  setAgentStatus = (nodeId: string, body: ApprovalRequest) => this.request<Agent>('POST', `/agents/${encodeURIComponent(nodeId)}`, { body });
  deleteAgent = (nodeId: string) => this.request<void>('DELETE', `/agents/${encodeURIComponent(nodeId)}`);
  agentAttributes = (nodeId: string) => this.request<AgentAttributes>('GET', `/agents/${encodeURIComponent(nodeId)}/attributes`);

  // tags
  replaceTags = (nodeId: string, body: ReplaceTagsRequest) => this.request<AgentTags>('PUT', `/agents/${encodeURIComponent(nodeId)}/tags`, { body });
  setTag = (nodeId: string, key: string, value: string) =>
    this.request<AgentTags>('PUT', `/agents/${encodeURIComponent(nodeId)}/tags/${encodeURIComponent(key)}`, { body: { value } });
  removeTag = (nodeId: string, key: string) => this.request<AgentTags>('DELETE', `/agents/${encodeURIComponent(nodeId)}/tags/${encodeURIComponent(key)}`);
  listTags = () => this.request<TagList>('GET', '/tags');

  // metrics
  agentMetrics = (nodeId: string, query: MetricsQuery = {}) => this.request<MetricsHistory>('GET', `/agents/${encodeURIComponent(nodeId)}/metrics`, { query });
  latestMetrics = (nodeId: string) => this.request<MetricsLatest>('GET', `/agents/${encodeURIComponent(nodeId)}/metrics/latest`);

  // terminals
  openTerminal = (nodeId: string, body: OpenTerminalRequest) => this.request<OpenTerminalResponse>('POST', `/terminal/${encodeURIComponent(nodeId)}`, { body });
  listTerminals = (query: TerminalListQuery = {}) => this.request<List<TerminalSession>>('GET', '/terminal', { query });
  getTerminal = (sessionId: string) => this.request<TerminalSession>('GET', `/terminal/session/${encodeURIComponent(sessionId)}`);
  closeTerminal = (sessionId: string) => this.request<TerminalSession | undefined>('DELETE', `/terminal/session/${encodeURIComponent(sessionId)}`);
  terminalTranscript = (sessionId: string) => this.blob(`/terminal/session/${encodeURIComponent(sessionId)}/transcript`);

  /**
   * The stream WebSocket's address: the orchestrator's stream_path on this page's origin,
   * ws: or wss: to match, with the single-use ticket (a browser WebSocket cannot send a bearer header).
   */
  terminalStreamUrl(streamPath: string, ticket: string): string {
    const url = new URL(streamPath, location.origin);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('ticket', ticket);
    return url.href;
  }

  // modules
  listModules = (query: ListParams = {}) => this.request<List<ModuleSummary>>('GET', '/modules', { query });
  getModule = (name: string, revision?: number) => this.request<ModuleDetails>('GET', `/modules/${encodeURIComponent(name)}`, { query: { revision } });
  uploadModule = (content: string) => this.request<ModuleUploadResponse>('POST', '/modules', { body: { content } });
  deleteModule = (name: string) => this.request<void>('DELETE', `/modules/${encodeURIComponent(name)}`);

  // secrets (metadata only; a value goes out once and never comes back)
  listSecrets = (query: ListParams = {}) => this.request<List<SecretMetadata>>('GET', '/secrets', { query });
  createSecret = (body: CreateSecretRequest) => this.request<SecretMetadata>('POST', '/secrets', { body });
  updateSecret = (name: string, body: UpdateSecretRequest) => this.request<SecretMetadata>('PUT', `/secrets/${encodeURIComponent(name)}`, { body });
  deleteSecret = (name: string) => this.request<void>('DELETE', `/secrets/${encodeURIComponent(name)}`);

  // desired state: apply and plan on one agent, and the operations they leave
  applyOnAgent = (nodeId: string, body: StateRunRequest) => this.request<OperationSummary>('POST', `/agents/${encodeURIComponent(nodeId)}/apply`, { body });
  planOnAgent = (nodeId: string, body: Omit<StateRunRequest, 'plan_operation_id'>) =>
    this.request<OperationSummary>('POST', `/agents/${encodeURIComponent(nodeId)}/plan`, { body });
  listOperations = (query: OperationsQuery = {}) => this.request<List<OperationSummary>>('GET', '/state/operations', { query });
  getOperation = (operationId: string) => this.request<Operation>('GET', `/state/operations/${encodeURIComponent(operationId)}`);
  listAgentOperations = (nodeId: string, query: AgentOperationsQuery = {}) =>
    this.request<List<OperationSummary>>('GET', `/agents/${encodeURIComponent(nodeId)}/state/operations`, { query });
  operationOutput = (nodeId: string, operationId: string) =>
    this.request<OperationOutput>('GET', `/agents/${encodeURIComponent(nodeId)}/state/operations/${encodeURIComponent(operationId)}/output`);
  believedState = (nodeId: string) => this.request<BelievedState>('GET', `/agents/${encodeURIComponent(nodeId)}/state`);

  // drift
  checkDrift = (nodeId: string) => this.request<DriftSummary>('POST', `/agents/${encodeURIComponent(nodeId)}/drift`);
  listDrift = (nodeId: string, query: ListParams = {}) => this.request<List<DriftSummary>>('GET', `/agents/${encodeURIComponent(nodeId)}/drift`, { query });
  latestDrift = (nodeId: string) => this.request<DriftRecord>('GET', `/agents/${encodeURIComponent(nodeId)}/drift/latest`);
  getDrift = (driftId: string) => this.request<DriftRecord>('GET', `/drift/${encodeURIComponent(driftId)}`);

  // assignments and the batches their apply/plan creates
  listAssignments = (query: ListParams = {}) => this.request<List<Assignment>>('GET', '/assignments', { query });
  getAssignment = (name: string) => this.request<Assignment>('GET', `/assignments/${encodeURIComponent(name)}`);
  createAssignment = (body: AssignmentCreate) => this.request<Assignment>('POST', '/assignments', { body });
  deleteAssignment = (name: string) => this.request<void>('DELETE', `/assignments/${encodeURIComponent(name)}`);
  applyAssignment = (name: string, body: AssignmentRunRequest = {}) => this.request<BatchSummary>('POST', `/assignments/${encodeURIComponent(name)}/apply`, { body });
  planAssignment = (name: string, body: AssignmentRunRequest = {}) => this.request<BatchSummary>('POST', `/assignments/${encodeURIComponent(name)}/plan`, { body });
  getBatch = (batchId: string) => this.request<BatchSummary>('GET', `/state/batches/${encodeURIComponent(batchId)}`);

  // notifications: the requesting operator's inbox
  listNotifications = (query: NotificationQuery = {}) => this.request<NotificationList>('GET', '/notifications', { query });
  markNotificationRead = (id: Notification['id']) => this.request<ReadResult>('POST', `/notifications/${encodeURIComponent(id)}/read`);
  markAllNotificationsRead = () => this.request<ReadResult>('POST', '/notifications/read-all');

  // channels: where notifications are delivered
  listChannels = (query: ListParams = {}) => this.request<List<Channel>>('GET', '/channels', { query });
  getChannel = (id: string) => this.request<Channel>('GET', `/channels/${encodeURIComponent(id)}`);
  createChannel = (body: ChannelCreate) => this.request<Channel>('POST', '/channels', { body });
  updateChannel = (id: string, body: ChannelUpdate) => this.request<Channel>('PUT', `/channels/${encodeURIComponent(id)}`, { body });
  deleteChannel = (id: string) => this.request<void>('DELETE', `/channels/${encodeURIComponent(id)}`);
  testChannel = (id: string) => this.request<SendOutcome>('POST', `/channels/${encodeURIComponent(id)}/test`);
  listDeliveries = (id: string, query: DeliveryQuery = {}) => this.request<List<Delivery>>('GET', `/channels/${encodeURIComponent(id)}/deliveries`, { query });

  // maintenance windows
  listWindows = (query: WindowQuery = {}) => this.request<List<MaintenanceWindow>>('GET', '/maintenance-windows', { query });
  getWindow = (id: string) => this.request<MaintenanceWindow>('GET', `/maintenance-windows/${encodeURIComponent(id)}`);
  createWindow = (body: WindowCreate) => this.request<MaintenanceWindow>('POST', '/maintenance-windows', { body });
  updateWindow = (id: string, body: WindowUpdate) => this.request<MaintenanceWindow>('PUT', `/maintenance-windows/${encodeURIComponent(id)}`, { body });
  deleteWindow = (id: string) => this.request<void>('DELETE', `/maintenance-windows/${encodeURIComponent(id)}`);

  // discovery
  discover = (body: DiscoverRequest = {}) => this.request<Discovery>('POST', '/discover', { body });
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
