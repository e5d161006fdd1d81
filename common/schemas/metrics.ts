import { Type, type Static } from 'typebox';
import { NodeId } from './agents.js';
import { Timestamp } from './shared.js';

export const MetricsPoint = Type.Object({
  ts: Timestamp,
  cpu_percent: Type.Number(),
  load1: Type.Number(),
  load5: Type.Number(),
  load15: Type.Number(),
  mem_used: Type.Number(),
  mem_total: Type.Number(),
  swap_used: Type.Number(),
  swap_total: Type.Number(),
  disks: Type.Array(Type.Object({ mount: Type.String(), used: Type.Number(), total: Type.Number() })),
  net_rx_bps: Type.Number(),
  net_tx_bps: Type.Number(),
  processes: Type.Number(),
  uptime_s: Type.Number(),
});
export type MetricsPoint = Static<typeof MetricsPoint>;

export const MetricsQuery = Type.Object(
  {
    since: Type.Optional(Timestamp),
    until: Type.Optional(Timestamp),
    step: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400, description: 'Seconds between points; the answer picks the resolution (raw, 1 min, 1 h) that serves it' })),
  },
  { additionalProperties: false },
);
export type MetricsQuery = Static<typeof MetricsQuery>;

export const MetricsHistory = Type.Object({
  node_id: NodeId,
  since: Timestamp,
  until: Timestamp,
  resolution: Type.Union([Type.Literal('raw'), Type.Literal('1m'), Type.Literal('1h')]),
  step_s: Type.Integer(),
  points: Type.Array(MetricsPoint),
});
export type MetricsHistory = Static<typeof MetricsHistory>;

export const MetricsLatest = Type.Object({ node_id: NodeId, received_at: Timestamp, sample: MetricsPoint });
export type MetricsLatest = Static<typeof MetricsLatest>;
