import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuditChainReport, AuditEvent, AuditPruneQuery, AuditPruneResponse, AuditQuery, AuditRetention } from '../../common/schemas/audit.js';
import { ListOf } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { BadRequest } from '../http/errors.js';

export const auditRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { audit } = services;

  app.get(
    '/audit',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['audit'],
        summary: 'Query the audit log (any authenticated operator)',
        description: 'Most recent first. Filters combine with AND; `since` is inclusive and `until` exclusive.',
        querystring: AuditQuery,
        response: { 200: ListOf(AuditEvent) },
      },
    },
    async (request) => {
      const { since, until } = request.query;
      if (since && until && new Date(since) >= new Date(until)) {
        throw new BadRequest('since must be before until', [{ field: 'querystring.since', message: 'must be before until' }]);
      }
      return audit.query(request.query);
    },
  );

  app.delete(
    '/audit',
    {
      config: { access: 'admin', audit: 'audit.prune' },
      schema: {
        tags: ['audit'],
        summary: 'Prune old audit events; query parameter `before` (ISO 8601 timestamp)',
        description: 'Deletes events older than `before`. The prune itself is recorded as a new event that carries where the hash chain restarts.',
        querystring: AuditPruneQuery,
        response: { 200: AuditPruneResponse },
      },
    },
    async (request) => {
      const before = new Date(request.query.before);
      const deleted = audit.prune(before, {
        type: 'operator',
        id: request.auth!.operator.operator_id,
        ip: request.ip,
        requestId: request.id,
      });
      // The service recorded the prune inside its own transaction; skip the generic record.
      request.auditOverride = { details: { before: before.toISOString(), deleted } };
      request.auditRecorded = true;
      return { deleted, before: before.toISOString() };
    },
  );

  app.get(
    '/audit/retention',
    {
      config: { access: 'viewer' },
      schema: { tags: ['audit'], summary: 'Read the audit retention setting (any authenticated operator)', response: { 200: AuditRetention } },
    },
    async () => ({ days: audit.retentionDays() }),
  );

  app.put(
    '/audit/retention',
    {
      config: { access: 'admin', audit: 'audit.retention_update' },
      schema: {
        tags: ['audit'],
        summary: 'Update the audit retention setting',
        description: '`days`: events older than this are pruned daily; 0 keeps everything.',
        body: AuditRetention,
        response: { 200: AuditRetention },
      },
    },
    async (request) => {
      const before = audit.retentionDays();
      audit.setRetentionDays(request.body.days);
      request.auditOverride = { target: 'audit.retention', details: { from: before, to: request.body.days } };
      return { days: request.body.days };
    },
  );

  app.get(
    '/audit/verify',
    {
      config: { access: 'viewer' },
      schema: { tags: ['audit'], summary: 'Check the hash chain of the whole audit log', response: { 200: AuditChainReport } },
    },
    async () => audit.verifyChain(),
  );
};
