import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { LiveEventMap, LiveEventType } from '../../common/schemas/events.js';
import type { Services } from '../context.js';
import { TooManyRequests } from '../http/errors.js';
import { MAX_STREAMS_PER_OPERATOR, type LiveConnection } from '../services/live-stream.js';

/** Keeps proxies from closing an idle stream, and re-checks the session this often. */
const PING_MS = 25_000;

export const eventStreamRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { live, notifications, auth } = services;

  app.get(
    '/events',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['notifications'],
        summary: 'Live event stream (server-sent events)',
        description:
          'Stays open and pushes `event: <type>` / `data: <JSON>` messages: `hello` {unread_count} on connect; `notification` {notification, unread_count} for each new notification of the operator; ' +
          '`unread` {unread_count} when their read markers change; `agent` {node_id, online} or {node_id, change}; `operation` {operation_id, node_id, kind, status}; `maintenance` {window_id}; ' +
          '`desktop` {title, body, severity, kind} for desktop channels. A comment line every 25 s keeps it open; the stream ends when the session does. ' +
          'Authenticate with the Authorization header (fetch streaming, or `curl -N -H "Authorization: Bearer ..."`). Nothing is replayed: after a reconnect, read current state over the API. ' +
          `At most ${MAX_STREAMS_PER_OPERATOR} streams per operator (429).`,
        response: { 200: { description: 'An endless text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
      },
    },
    async (request, reply) => {
      const session = request.auth!;
      const operatorId = session.operator.operator_id;
      if (live.countFor(operatorId) >= MAX_STREAMS_PER_OPERATOR) {
        throw new TooManyRequests(`${operatorId} has ${MAX_STREAMS_PER_OPERATOR} event streams open already; close one`, 30);
      }
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write('retry: 3000\n\n');
      const ping = setInterval(() => {
        // A signed-out, expired or removed operator's stream ends here at the latest.
        if (!auth.isCurrent(session)) {
          live.remove(connection);
          connection.close();
          return;
        }
        res.write(': ping\n\n');
      }, PING_MS);
      ping.unref();
      const connection: LiveConnection = {
        operatorId,
        send<T extends LiveEventType>(type: T, data: LiveEventMap[T]): boolean {
          if (res.destroyed || res.writableEnded) return false;
          res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
          return true;
        },
        close() {
          clearInterval(ping);
          if (!res.writableEnded) res.end();
        },
      };
      live.add(connection);
      connection.send('hello', { unread_count: notifications.unreadCount(operatorId) });
      request.raw.on('close', () => {
        live.remove(connection);
        connection.close();
      });
    },
  );
};
