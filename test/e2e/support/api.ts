import type { Agent } from '../../../common/schemas/agents.js';
import type { SessionResponse } from '../../../common/schemas/auth.js';
import type { CreateOperatorRequest, Operator } from '../../../common/schemas/operators.js';
import type { CreateSecretRequest, SecretMetadata } from '../../../common/schemas/secrets.js';
import type { OpenTerminalResponse } from '../../../common/schemas/terminals.js';
import { sshsign, type SshKey } from './ssh.js';

/** A few direct API calls for arranging test data. */
export class ApiHelper {
  constructor(
    private readonly baseUrl: string,
    private token?: string,
  ) {}

  private async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}/api/v1${route}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async signIn(operatorId: string, key: SshKey): Promise<void> {
    const challenge = await this.call<{ nonce: string; message: string }>('POST', '/auth/challenge', { operator_id: operatorId });
    const session = await this.call<SessionResponse>('POST', '/auth/verify', { operator_id: operatorId, nonce: challenge.nonce, signature: sshsign(key, challenge.message) });
    this.token = session.token;
  }

  /** An unauthenticated challenge: cheap, and audited, so tests use it to fill the log. */
  async challenge(operatorId: string): Promise<void> {
    await this.call('POST', '/auth/challenge', { operator_id: operatorId });
  }

  async signOut(): Promise<void> {
    await this.call<void>('DELETE', '/auth/session');
  }

  createOperator(request: CreateOperatorRequest): Promise<Operator> {
    return this.call<Operator>('POST', '/operators', request);
  }

  createSecret(request: CreateSecretRequest): Promise<SecretMetadata> {
    return this.call<SecretMetadata>('POST', '/secrets', request);
  }

  deleteSecret(name: string): Promise<void> {
    return this.call<void>('DELETE', `/secrets/${encodeURIComponent(name)}`);
  }

  setAgentStatus(nodeId: string, status: 'accepted' | 'rejected'): Promise<Agent> {
    return this.call<Agent>('POST', `/agents/${encodeURIComponent(nodeId)}`, { status });
  }

  setTag(nodeId: string, key: string, value: string): Promise<unknown> {
    return this.call('PUT', `/agents/${encodeURIComponent(nodeId)}/tags/${encodeURIComponent(key)}`, { value });
  }

  getAgent(nodeId: string): Promise<Agent> {
    return this.call<Agent>('GET', `/agents/${encodeURIComponent(nodeId)}`);
  }

  /** Approves an agent and waits until its link is up again (approval restarts it). */
  async approveAndWaitOnline(nodeId: string, timeoutMs = 30_000): Promise<Agent> {
    await this.setAgentStatus(nodeId, 'accepted');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const agent = await this.getAgent(nodeId);
      if (agent.status === 'accepted' && agent.online) return agent;
      if (Date.now() > deadline) throw new Error(`${nodeId} did not come online as accepted within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  openTerminal(nodeId: string, size: { cols: number; rows: number } = { cols: 80, rows: 24 }): Promise<OpenTerminalResponse> {
    return this.call<OpenTerminalResponse>('POST', `/terminal/${encodeURIComponent(nodeId)}`, size);
  }
}
