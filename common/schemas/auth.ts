import { Type, type Static } from 'typebox';
import { Operator, OperatorId, PublicKeyLine } from './operators.js';
import { Timestamp } from './shared.js';

export const ChallengeRequest = Type.Object({ operator_id: OperatorId }, { additionalProperties: false });
export type ChallengeRequest = Static<typeof ChallengeRequest>;

export const ChallengeResponse = Type.Object({
  nonce: Type.String(),
  message: Type.String({ description: 'The exact text to sign: "corral-auth-v1:" followed by the nonce' }),
  namespace: Type.String({ description: 'SSHSIG namespace for ssh-keygen -Y sign' }),
  expires_at: Timestamp,
});
export type ChallengeResponse = Static<typeof ChallengeResponse>;

export const VerifyRequest = Type.Object(
  {
    operator_id: OperatorId,
    nonce: Type.String({ minLength: 1, maxLength: 200 }),
    signature: Type.String({
      minLength: 1,
      maxLength: 10000,
      description: 'Base64 raw Ed25519 signature of the message, or an armored SSHSIG (namespace "corral")',
    }),
  },
  { additionalProperties: false },
);
export type VerifyRequest = Static<typeof VerifyRequest>;

export const SessionResponse = Type.Object({
  token: Type.String({ description: 'Send as "Authorization: Bearer <token>"' }),
  expires_at: Timestamp,
  operator: Operator,
});
export type SessionResponse = Static<typeof SessionResponse>;

export const WhoAmIResponse = Type.Object({
  operator: Operator,
  expires_at: Timestamp,
  key_fingerprint: Type.String(),
});
export type WhoAmIResponse = Static<typeof WhoAmIResponse>;

export const AddKeyRequest = Type.Object({ public_key: PublicKeyLine }, { additionalProperties: false });
export type AddKeyRequest = Static<typeof AddKeyRequest>;

export const RemoveKeyQuery = Type.Object(
  { fingerprint: Type.String({ minLength: 1, maxLength: 100, description: 'SHA256:... as ssh-keygen -l prints it' }) },
  { additionalProperties: false },
);

export const SetupRequest = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The one-time token from the setup link' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    public_key: PublicKeyLine,
  },
  { additionalProperties: false },
);
export type SetupRequest = Static<typeof SetupRequest>;
