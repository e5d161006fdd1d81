import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MaintenanceWindow, WindowCreate, WindowParams, WindowQuery, WindowUpdate } from '../../common/schemas/maintenance.js';
import { ListOf } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const maintenanceRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { maintenance } = services;

  app.get(
    '/maintenance-windows',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['maintenance'],
        summary: 'List all maintenance windows',
        description: 'Newest start first; `status` (scheduled, active, ended) is derived from the clock when read and can be filtered on.',
        querystring: WindowQuery,
        response: { 200: ListOf(MaintenanceWindow) },
      },
    },
    async (request) => maintenance.list(request.query),
  );

  app.post(
    '/maintenance-windows',
    {
      config: { access: 'admin', audit: 'maintenance.create' },
      schema: {
        tags: ['maintenance'],
        summary: 'Create a maintenance window',
        description:
          'While a window is active for an agent (its selector matches the agent\'s tags), that agent\'s notifications are recorded but not sent to channels, and assignments marked `only_in_maintenance` may change it. ' +
          'maintenance.started and maintenance.ended are events; at the end one digest per channel summarises what was held back. `starts_at` defaults to now.',
        body: WindowCreate,
        response: { 201: MaintenanceWindow },
      },
    },
    async (request, reply) => {
      const created = maintenance.create(request.body, request.auth!.operator.operator_id);
      request.auditOverride = { target: created.id, details: { name: created.name, selector: created.selector, starts_at: created.starts_at, ends_at: created.ends_at } };
      return reply.code(201).header('location', `/api/v1/maintenance-windows/${created.id}`).send(created);
    },
  );

  app.get(
    '/maintenance-windows/:id',
    { config: { access: 'viewer' }, schema: { tags: ['maintenance'], summary: 'Get one maintenance window', params: WindowParams, response: { 200: MaintenanceWindow } } },
    async (request) => maintenance.get(request.params.id),
  );

  app.put(
    '/maintenance-windows/:id',
    {
      config: { access: 'admin', audit: 'maintenance.update' },
      schema: {
        tags: ['maintenance'],
        summary: 'Update a window (typically to end it early)',
        description:
          'Fields left out keep their values. `ends_at` at or before now ends an active window at once (its end and digest are sent before the answer). ' +
          '409 `window-started` for a new starts_at of an active window, `window-ended` for changing the times or selector of an ended one.',
        params: WindowParams,
        body: WindowUpdate,
        response: { 200: MaintenanceWindow, 409: problemResponse('The window has started or ended') },
      },
    },
    async (request) => {
      request.auditOverride = { target: request.params.id };
      const updated = maintenance.update(request.params.id, request.body, request.auth!.operator.operator_id);
      request.auditOverride = { target: updated.id, details: { name: updated.name, changed: Object.keys(request.body).sort(), ends_at: updated.ends_at, status: updated.status } };
      return updated;
    },
  );

  app.delete(
    '/maintenance-windows/:id',
    {
      config: { access: 'admin', audit: 'maintenance.delete' },
      schema: {
        tags: ['maintenance'],
        summary: 'Delete a maintenance window',
        description: 'An active window is ended first, so what it held back is still summarised.',
        params: WindowParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      request.auditOverride = { target: request.params.id };
      const removed = maintenance.remove(request.params.id, request.auth!.operator.operator_id);
      request.auditOverride = { target: removed.id, details: { name: removed.name, status: removed.status } };
      return reply.code(204).send(null);
    },
  );
};
