import { Type, type Static } from 'typebox';
import { ListQuery, Timestamp } from './shared.js';

/** A secret's name: what modules write as `{{ secrets.NAME }}`, so an identifier. */
export const SECRET_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
/** Largest value, in characters of the JSON string (64 KiB). */
export const SECRET_VALUE_MAX = 64 * 1024;

export const SecretName = Type.String({
  pattern: SECRET_NAME_PATTERN,
  description: 'Letters, digits and _, not starting with a digit, at most 64 characters',
});
const SecretValue = Type.String({
  minLength: 1,
  maxLength: SECRET_VALUE_MAX,
  description: 'The secret value; write-only: no answer ever contains it',
  writeOnly: true,
});
const SecretDescription = Type.String({ maxLength: 1000 });

/** What every read answers: metadata only, never the value. */
export const SecretMetadata = Type.Object(
  {
    name: SecretName,
    description: Type.String(),
    version: Type.Integer({ minimum: 1, description: 'Starts at 1; goes up by one each time the value changes' }),
    created_at: Timestamp,
    created_by: Type.String(),
    updated_at: Timestamp,
    updated_by: Type.String(),
    used_by: Type.Array(Type.String(), { description: 'Names of the modules that reference this secret' }),
  },
  { additionalProperties: false },
);
export type SecretMetadata = Static<typeof SecretMetadata>;

export const CreateSecretRequest = Type.Object(
  { name: SecretName, value: SecretValue, description: Type.Optional(SecretDescription) },
  { additionalProperties: false },
);
export type CreateSecretRequest = Static<typeof CreateSecretRequest>;

export const UpdateSecretRequest = Type.Object(
  { value: Type.Optional(SecretValue), description: Type.Optional(SecretDescription) },
  { additionalProperties: false, minProperties: 1, description: 'At least one of value and description' },
);
export type UpdateSecretRequest = Static<typeof UpdateSecretRequest>;

export const SecretParams = Type.Object({ name: SecretName }, { additionalProperties: false });

export const SecretListQuery = ListQuery;
export type SecretListQuery = Static<typeof SecretListQuery>;
