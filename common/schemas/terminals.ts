import { Type, type Static } from 'typebox';
import { NodeId } from './agents.js';
import { Timestamp } from './shared.js';

export const SessionId = Type.String({ format: 'uuid', description: 'Terminal session id' });
export const TerminalState = Type.Union([Type.Literal('opening'), Type.Literal('open'), Type.Literal('closed')]);

export const OpenTerminalRequest = Type.Object(
  {
    cols: Type.Integer({ minimum: 1, maximum: 1000 }),
    rows: Type.Integer({ minimum: 1, maximum: 500 }),
    shell: Type.Optional(Type.String({ pattern: '^/[^\\0]{0,255}$', description: 'Absolute path of the shell; default: the login shell of the user' })),
    user: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_-]{0,31}$', description: 'Run as this user; only where the agent runs as root' })),
  },
  { additionalProperties: false },
);
export type OpenTerminalRequest = Static<typeof OpenTerminalRequest>;

export const TerminalSession = Type.Object({
  session_id: SessionId,
  node_id: NodeId,
  operator_id: Type.String(),
  shell: Type.Union([Type.String(), Type.Null()]),
  user: Type.Union([Type.String(), Type.Null()]),
  cols: Type.Integer(),
  rows: Type.Integer(),
  state: TerminalState,
  started_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  close_reason: Type.Union([Type.String(), Type.Null()], { description: 'exit, closed, idle, agent-disconnected, operator-removed, not-attached, ...' }),
  bytes_in: Type.Integer({ description: 'Bytes typed into the terminal' }),
  bytes_out: Type.Integer({ description: 'Bytes the terminal printed' }),
  transcript_bytes: Type.Integer(),
  transcript_truncated: Type.Boolean(),
});
export type TerminalSession = Static<typeof TerminalSession>;

export const OpenTerminalResponse = Type.Intersect([
  TerminalSession,
  Type.Object({
    ticket: Type.String({ description: 'Single-use, 30 s: opens the stream WebSocket as ?ticket=...' }),
    ticket_expires_at: Timestamp,
    stream_path: Type.String({ description: '/api/v1/terminal/session/{session_id}/stream' }),
  }),
]);
export type OpenTerminalResponse = Static<typeof OpenTerminalResponse>;

export const TerminalListQuery = Type.Object(
  {
    node_id: Type.Optional(NodeId),
    state: Type.Optional(TerminalState),
    operator_id: Type.Optional(Type.String({ maxLength: 63 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type TerminalListQuery = Static<typeof TerminalListQuery>;

export const SessionParams = Type.Object({ session_id: SessionId }, { additionalProperties: false });
export const StreamQuery = Type.Object({ ticket: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });

/** Text frames on the stream WebSocket, both ways (binary frames carry terminal bytes). */
export type StreamControl =
  | { type: 'resize'; cols: number; rows: number }
  | { type: 'exit'; code: number | null; signal: number | null }
  | { type: 'closed'; reason: string }
  | { type: 'error'; message: string };
