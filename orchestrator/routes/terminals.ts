import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createReadStream, statSync } from 'node:fs';
import { Type } from 'typebox';
import { AgentParams } from '../../common/schemas/agents.js';
import { ListOf } from '../../common/schemas/shared.js';
import { OpenTerminalRequest, OpenTerminalResponse, SessionParams, StreamQuery, TerminalListQuery, TerminalSession } from '../../common/schemas/terminals.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

// Who sees what (docs/api.md, "Terminals"): every signed-in operator may list and read
// session metadata (viewers included: it is who-did-what, like the audit log); opening,
// closing and transcripts need the operator role; a stream attaches only for the
// session's own operator or an admin.

export const terminalRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { terminals } = services;

  app.get(
    '/terminal',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['terminals'],
        summary: 'List terminal sessions',
        description: 'Most recent first. Filters combine with AND: `node_id`, `state`, `operator_id`. Open sessions show live byte counts.',
        querystring: TerminalListQuery,
        response: { 200: ListOf(TerminalSession) },
      },
    },
    async (request) => terminals.list(request.query),
  );

  app.post(
    '/terminal/:node_id',
    {
      config: { access: 'operator', audit: 'terminal.open' },
      schema: {
        tags: ['terminals'],
        summary: 'Open a terminal session',
        description:
          'Starts a shell in a pty on the agent and answers once it runs, with a single-use ticket (30 s) that opens the stream ' +
          'WebSocket at `stream_path?ticket=...`. A session nobody attaches to within 30 s is closed.',
        params: AgentParams,
        body: OpenTerminalRequest,
        response: {
          201: OpenTerminalResponse,
          409: problemResponse('The agent is offline or not accepted (agent-offline, agent-not-accepted), or has the most sessions allowed (too-many-sessions)'),
          502: problemResponse('The agent could not start the shell (terminal-open-failed)'),
        },
      },
    },
    async (request, reply) => {
      const { node_id } = request.params;
      request.auditOverride = { target: node_id, details: { cols: request.body.cols, rows: request.body.rows, shell: request.body.shell ?? null, user: request.body.user ?? null } };
      const opened = await terminals.open(node_id, request.auth!.operator, request.body);
      request.auditOverride.details = { ...request.auditOverride.details, session_id: opened.session_id };
      return reply.code(201).send(opened);
    },
  );

  app.get(
    '/terminal/session/:session_id',
    {
      config: { access: 'viewer' },
      schema: { tags: ['terminals'], summary: 'Get terminal session metadata', params: SessionParams, response: { 200: TerminalSession } },
    },
    async (request) => terminals.get(request.params.session_id),
  );

  app.delete(
    '/terminal/session/:session_id',
    {
      config: { access: 'operator', audit: 'terminal.close' },
      schema: {
        tags: ['terminals'],
        summary: 'Close a terminal session',
        description: 'Kills the shell. Closing a session that is already closed answers 204 too (nothing changes).',
        params: SessionParams,
        response: { 204: { type: 'null', description: 'Closed' } },
      },
    },
    async (request, reply) => {
      const { session, wasOpen } = await terminals.closeByOperator(request.params.session_id);
      request.auditOverride = { target: session.session_id, details: { node_id: session.node_id, operator_id: session.operator_id, was_open: wasOpen } };
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/terminal/session/:session_id/transcript',
    {
      config: { access: 'operator' },
      schema: {
        tags: ['terminals'],
        summary: 'Download transcript',
        description: 'The asciicast v2 recording (`.cast`): output events, input events when `terminal_record_input` is on, resizes. A live session gives what is recorded so far.',
        params: SessionParams,
        response: {
          200: {
            description: 'asciicast v2: a JSON header line, then one JSON event array per line',
            content: { 'application/x-asciicast': { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      const { file, session } = terminals.transcriptFile(request.params.session_id);
      const size = statSync(file).size;
      // GET is not audited by the generic hook; reading what someone typed is.
      services.audit.record({
        actor_type: 'operator',
        actor: request.auth!.operator.operator_id,
        action: 'terminal.transcript',
        target: session.session_id,
        outcome: 'success',
        source_ip: request.ip,
        request_id: request.id,
        details: { node_id: session.node_id, operator_id: session.operator_id, bytes: size },
      });
      const body = createReadStream(file, { start: 0, end: Math.max(0, size - 1) });
      return reply
        .type('application/x-asciicast')
        .header('content-disposition', `attachment; filename="${session.node_id}-${session.session_id}.cast"`)
        .header('content-length', String(size))
        // The schema documents the body as a string; Fastify streams it as it is.
        .send(body as unknown as string);
    },
  );

  app.get(
    '/terminal/session/:session_id/stream',
    {
      websocket: true,
      config: { access: 'operator', ticket: true },
      schema: {
        tags: ['terminals'],
        summary: 'Terminal stream (WebSocket)',
        description:
          'Upgrade to a WebSocket. Credential: `?ticket=` from the open answer (single use, 30 s), or a bearer token of the ' +
          "session's operator or an admin. Binary frames carry terminal bytes both ways; text frames carry JSON control: " +
          '`{"type":"resize","cols":N,"rows":N}` from the client; `{"type":"exit","code":N,"signal":N}` or `{"type":"closed","reason":"..."}` ' +
          'from the server before it closes. One stream per session; closing it closes the session.',
        params: SessionParams,
        querystring: StreamQuery,
        response: {
          101: { description: 'Switching to the WebSocket protocol' },
          409: problemResponse('The session is closed or already has a stream'),
        },
      },
      preHandler: async (request) => {
        terminals.checkAttach(request.params.session_id, request.auth!.operator);
      },
    },
    (socket, request) => terminals.attach(request.params.session_id, socket),
  );
};
