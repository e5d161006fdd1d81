import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditOutcome } from '../../common/schemas/audit.js';
import type { AuditService } from '../services/audit.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function outcomeOf(status: number): AuditOutcome {
  if (status < 400) return 'success';
  if (status === 401 || status === 403 || status === 429) return 'denied';
  return 'error';
}

/**
 * Records every mutating request, including refused and failed ones, before
 * the answer leaves: onSend runs ahead of the write, and the insert is
 * synchronous, so an acknowledged change always has its audit event.
 */
export function registerAuditHook(app: FastifyInstance, audit: AuditService): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    if (!MUTATING.has(request.method) || request.auditRecorded) return payload;
    const route = request.routeOptions;
    const override = request.auditOverride ?? {};
    const params = (request.params ?? {}) as Record<string, string>;
    const status = reply.statusCode;
    const body = request.body && typeof request.body === 'object' ? request.body : undefined;
    audit.record({
      actor_type: request.auth ? 'operator' : override.actor ? 'operator' : 'anonymous',
      actor: request.auth?.operator.operator_id ?? override.actor ?? null,
      action: route.config?.audit ?? `${request.method} ${route.url ?? request.url.split('?')[0]}`,
      target: override.target !== undefined ? override.target : Object.values(params).join('/') || null,
      outcome: outcomeOf(status),
      source_ip: request.ip,
      request_id: request.id,
      details: {
        status,
        ...(request.problemCode ? { error: request.problemCode } : {}),
        ...(override.details ?? (body ? { request: body } : {})),
      },
    });
    return payload;
  });
}
