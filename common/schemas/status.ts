import { Type, type Static } from 'typebox';

export const StatusResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  protocol_version: Type.String(),
  api_version: Type.String(),
  uptime_s: Type.Integer(),
  tls_fingerprint: Type.Union([Type.String(), Type.Null()], {
    description: 'SHA-256 of the orchestrator certificate (colon-separated hex); null when serving plain HTTP',
  }),
  setup_required: Type.Boolean({ description: 'True until the first admin exists' }),
  checks: Type.Object(
    {
      database: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
      agents_connected: Type.Integer(),
      agents_total: Type.Integer(),
    },
    { additionalProperties: true },
  ),
});
export type StatusResponse = Static<typeof StatusResponse>;
