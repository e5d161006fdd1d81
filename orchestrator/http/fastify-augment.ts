import type { Access } from '../../common/auth.js';
import type { Authenticated } from '../services/auth.js';

export interface AuditOverride {
  actor?: string | null;
  target?: string | null;
  details?: Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: 'public' or the lowest role allowed. Required on every API route. */
    access?: Access;
    /** Audit action name for mutating routes, e.g. "operator.create". */
    audit?: string;
    /**
     * The route also accepts `?ticket=` (a terminal stream ticket for the route's
     * :session_id) as its credential, for browsers that cannot set headers on a WebSocket.
     */
    ticket?: boolean;
  }
  interface FastifyRequest {
    auth?: Authenticated;
    problemCode?: string;
    auditOverride?: AuditOverride;
    /** Set when the handler wrote its own audit event inside its transaction. */
    auditRecorded?: boolean;
  }
}
