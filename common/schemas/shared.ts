import { Type, type Static, type TSchema } from 'typebox';

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 / ISO 8601 time in UTC' });

export const ProblemFieldError = Type.Object({
  field: Type.String({ description: 'Where the problem is, e.g. "body.public_keys.0"' }),
  message: Type.String(),
  line: Type.Optional(Type.Integer({ minimum: 1, description: 'For errors inside an uploaded text (a module): the 1-based line' })),
  resource: Type.Optional(Type.String({ description: 'For module errors: the id of the resource the error is in' })),
});

/** RFC 9457 problem details, as every error answers. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    code: Type.String({ description: 'Stable machine-readable code, kebab-case' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(ProblemFieldError)),
  },
  { $id: 'Problem', additionalProperties: true },
);
export type Problem = Static<typeof Problem>;

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'Opaque cursor from next_cursor' })),
  },
  { additionalProperties: false },
);

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last' }),
  });
}

export interface List<T> {
  items: T[];
  next_cursor: string | null;
}
