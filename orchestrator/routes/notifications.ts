import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotificationList, NotificationParams, NotificationQuery, ReadResult } from '../../common/schemas/events.js';
import type { Services } from '../context.js';

export const notificationRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { notifications } = services;

  app.get(
    '/notifications',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['notifications'],
        summary: 'List notifications for the requesting operator',
        description:
          'Newest first. Filters: `unread`, `kind`, `severity` (at least: warning gives warning and critical), `since`, `node_id`; keyset pagination with `cursor`. ' +
          '`unread_count` counts all of the operator\'s unread notifications. Notifications marked `held` were recorded during a maintenance window and not sent to channels.',
        querystring: NotificationQuery,
        response: { 200: NotificationList },
      },
    },
    async (request) => notifications.list(request.auth!.operator.operator_id, request.query),
  );

  app.post(
    '/notifications/read-all',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['notifications'],
        summary: "Mark all of the requesting operator's notifications as read",
        description: "Other operators' read markers are untouched.",
        response: { 200: ReadResult },
      },
    },
    async (request) => notifications.markAllRead(request.auth!.operator.operator_id),
  );

  app.post(
    '/notifications/:id/read',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['notifications'],
        summary: 'Mark one notification as read for the requesting operator',
        description: 'Marking a read notification again changes nothing (`marked` 0). 404 `notification-not-found` when the operator has no such notification.',
        params: NotificationParams,
        response: { 200: ReadResult },
      },
    },
    async (request) => notifications.markRead(request.auth!.operator.operator_id, request.params.id),
  );
};
