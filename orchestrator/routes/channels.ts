import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Channel, ChannelCreate, ChannelParams, ChannelUpdate, Delivery, DeliveryQuery, SendOutcome } from '../../common/schemas/channels.js';
import { ListOf, ListQuery } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

function summary(c: Channel): Record<string, unknown> {
  return { name: c.name, type: c.type, enabled: c.enabled, events: c.events, min_severity: c.min_severity, config_fields: Object.keys(c.config).sort() };
}

export const channelRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { channels, deliveries } = services;

  app.get(
    '/channels',
    {
      config: { access: 'viewer' },
      schema: { tags: ['channels'], summary: 'List notification channels', description: 'Ordered by name. Credentials read back as {"set": true}; each channel has its delivery health.', querystring: ListQuery, response: { 200: ListOf(Channel) } },
    },
    async (request) => channels.list(request.query),
  );

  app.post(
    '/channels',
    {
      config: { access: 'admin', audit: 'channel.create' },
      schema: {
        tags: ['channels'],
        summary: 'Create a notification channel',
        description: 'The config is checked for its type; errors name the field (e.g. `body.config.url`). 409 `channel-exists` when the name is taken.',
        body: ChannelCreate,
        response: { 201: Channel, 409: problemResponse('A channel of that name exists') },
      },
    },
    async (request, reply) => {
      const created = channels.create(request.body, request.auth!.operator.operator_id);
      request.auditOverride = { target: created.id, details: summary(created) };
      return reply.code(201).header('location', `/api/v1/channels/${created.id}`).send(created);
    },
  );

  app.get(
    '/channels/:id',
    { config: { access: 'viewer' }, schema: { tags: ['channels'], summary: 'Get one channel', params: ChannelParams, response: { 200: Channel } } },
    async (request) => channels.get(request.params.id),
  );

  app.put(
    '/channels/:id',
    {
      config: { access: 'admin', audit: 'channel.update' },
      schema: {
        tags: ['channels'],
        summary: 'Update a channel',
        description: 'Fields left out keep their values. In `config`, a credential left out or sent as {"set": true} keeps its stored value, null clears it.',
        params: ChannelParams,
        body: ChannelUpdate,
        response: { 200: Channel, 409: problemResponse('Another channel has that name') },
      },
    },
    async (request) => {
      request.auditOverride = { target: request.params.id };
      const updated = channels.update(request.params.id, request.body, request.auth!.operator.operator_id);
      request.auditOverride = { target: updated.id, details: { ...summary(updated), changed: Object.keys(request.body).sort() } };
      return updated;
    },
  );

  app.delete(
    '/channels/:id',
    {
      config: { access: 'admin', audit: 'channel.delete' },
      schema: { tags: ['channels'], summary: 'Delete a channel', description: 'Its queued deliveries and history go with it.', params: ChannelParams, response: { 204: { type: 'null', description: 'Deleted' } } },
    },
    async (request, reply) => {
      request.auditOverride = { target: request.params.id };
      const removed = channels.remove(request.params.id);
      request.auditOverride = { target: removed.id, details: { name: removed.name, type: removed.type } };
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/channels/:id/test',
    {
      config: { access: 'admin', audit: 'channel.test' },
      schema: {
        tags: ['channels'],
        summary: 'Send a test notification through a channel',
        description:
          'Sends at once (not queued), also through a disabled channel, and answers what the receiver said: `ok`, and `detail` with the HTTP status, the SMTP reply or the error. ' +
          'The attempt is recorded in the channel\'s delivery history. A failed send is still a 200 answer: the request worked, the channel did not.',
        params: ChannelParams,
        response: { 200: SendOutcome },
      },
    },
    async (request) => {
      request.auditOverride = { target: request.params.id };
      const outcome = await deliveries.test(request.params.id);
      request.auditOverride = { target: request.params.id, details: { ok: outcome.ok, detail: outcome.detail } };
      return outcome;
    },
  );

  app.get(
    '/channels/:id/deliveries',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['channels'],
        summary: "A channel's delivery history",
        description: 'Newest first: each queued message with its status (pending, sending, delivered, failed), attempts, next retry, the last error and the receiver\'s answer. The newest 500 finished deliveries of each channel are kept.',
        params: ChannelParams,
        querystring: DeliveryQuery,
        response: { 200: ListOf(Delivery) },
      },
    },
    async (request) => channels.deliveries(request.params.id, request.query),
  );
};
