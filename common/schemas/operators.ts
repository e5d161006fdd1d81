import { Type, type Static } from 'typebox';
import { OPERATOR_ID_PATTERN } from '../auth.js';
import { Timestamp } from './shared.js';

export const RoleSchema = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')], {
  description: 'viewer < operator < admin',
});
export const OperatorId = Type.String({ pattern: OPERATOR_ID_PATTERN, description: 'Slug: lower-case letters, digits, . _ -' });
export const PublicKeyLine = Type.String({ minLength: 1, maxLength: 1000, description: 'OpenSSH public key line: "ssh-ed25519 AAAA... comment"' });

export const Operator = Type.Object({
  operator_id: OperatorId,
  name: Type.String(),
  role: RoleSchema,
  public_keys: Type.Array(Type.String()),
  created_at: Timestamp,
});
export type Operator = Static<typeof Operator>;

export const CreateOperatorRequest = Type.Object(
  {
    operator_id: OperatorId,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: RoleSchema,
    public_keys: Type.Array(PublicKeyLine, { minItems: 1, maxItems: 20 }),
  },
  { additionalProperties: false },
);
export type CreateOperatorRequest = Static<typeof CreateOperatorRequest>;

export const OperatorParams = Type.Object({ operator_id: OperatorId }, { additionalProperties: false });
