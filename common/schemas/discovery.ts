import { Type, type Static } from 'typebox';

export const DiscoverRequest = Type.Object(
  {
    wait_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 10000, default: 1500, description: 'How long to listen for answers' })),
    targets: Type.Optional(Type.Array(Type.String({ format: 'ipv4' }), { maxItems: 64, description: 'Extra unicast or broadcast addresses to probe' })),
  },
  { additionalProperties: false },
);
export type DiscoverRequest = Static<typeof DiscoverRequest>;

export const DiscoveredAgent = Type.Object({
  node_id: Type.String(),
  hostname: Type.String(),
  address: Type.String({ description: 'Address the answer came from' }),
  addresses: Type.Array(Type.String()),
  agent_version: Type.String(),
  key_fingerprint: Type.String(),
  enrolled: Type.Boolean({ description: 'The agent already has an orchestrator configured' }),
  known: Type.Boolean({ description: 'This orchestrator has a record of the node id' }),
});
export type DiscoveredAgent = Static<typeof DiscoveredAgent>;

export const DiscoverResponse = Type.Object({
  sent_to: Type.Array(Type.String(), { description: 'Broadcast and target addresses probed' }),
  wait_ms: Type.Integer(),
  items: Type.Array(DiscoveredAgent),
});
