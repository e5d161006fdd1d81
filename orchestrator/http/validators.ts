import { Ajv, type Options } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

const common: Options = { removeAdditional: false, useDefaults: true, allErrors: true, strict: false };

function ajv(coerceTypes: Options['coerceTypes']): Ajv {
  return addFormats(new Ajv({ ...common, coerceTypes }));
}

/**
 * Query strings, path parameters and headers arrive as text, so their numbers
 * and booleans are coerced; a JSON body is validated exactly as sent, so
 * `{"role": 1}` or `"public_keys": "ssh-ed25519 ..."` is an error, not a guess.
 */
const byPart: Record<string, Ajv> = {
  body: ajv(false),
  querystring: ajv('array'),
  params: ajv('array'),
  headers: ajv('array'),
};

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const compiler = byPart[httpPart ?? 'body'] ?? byPart.body!;
  return compiler.compile(schema as object);
};
