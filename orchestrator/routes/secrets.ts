import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyRequest } from 'fastify';
import {
  CreateSecretRequest,
  SECRET_NAME_PATTERN,
  SecretListQuery,
  SecretMetadata,
  SecretParams,
  UpdateSecretRequest,
} from '../../common/schemas/secrets.js';
import { ListOf } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';
import { HttpError } from '../http/errors.js';
import { sendProblem, toProblem } from '../http/problem-handler.js';

const NAME = new RegExp(SECRET_NAME_PATTERN);

/**
 * What the audit event of a write says, decided before the body is validated, so that
 * the generic audit hook never falls back to copying the body (and with it the value)
 * into the details, not even for a refused request. Only which fields were sent.
 */
function auditBeforeValidation(request: FastifyRequest): void {
  const body = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : {};
  const params = (request.params ?? {}) as Record<string, unknown>;
  const named = typeof params.name === 'string' ? params.name : body.name;
  request.auditOverride = {
    target: typeof named === 'string' && NAME.test(named) ? named : null,
    details: { fields: Object.keys(body).filter((k) => k === 'name' || k === 'value' || k === 'description').sort() },
  };
}

export const secretRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { secrets } = services;

  // For these routes only: a body that is not JSON gets a problem without the parser's
  // message, which quotes the start of the body (on Node 20: `"{"value":"hunter2..." is
  // not valid JSON`), and the body here may be a secret value.
  app.setErrorHandler((err, request, reply) => {
    const problem = toProblem(err as FastifyError, request);
    if (problem.code === 'invalid-json') {
      problem.detail = 'the body is not valid JSON (the parser message is withheld: it would quote the body)';
      problem.errors = [{ field: 'body', message: 'not valid JSON' }];
    }
    if (problem.status >= 500) request.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'request failed');
    return sendProblem(reply, problem, err instanceof HttpError ? err.headers : undefined);
  });

  app.get(
    '/secrets',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['secrets'],
        summary: 'List secrets (metadata only)',
        description: 'Ordered by name. Never includes a value.',
        querystring: SecretListQuery,
        response: { 200: ListOf(SecretMetadata) },
      },
    },
    async (request) => secrets.list(request.query),
  );

  app.post(
    '/secrets',
    {
      config: { access: 'operator', audit: 'secret.create' },
      preValidation: async (request) => auditBeforeValidation(request),
      schema: {
        tags: ['secrets'],
        summary: 'Create a secret',
        description: 'The value is encrypted at rest (AES-256-GCM under the master key) and never returned; the answer is the metadata.',
        body: CreateSecretRequest,
        response: { 201: SecretMetadata, 409: problemResponse('A secret with that name exists already') },
      },
    },
    async (request, reply) => {
      const created = secrets.create(request.body, request.auth!.operator.operator_id);
      request.auditOverride = { target: created.name, details: { version: created.version, description: created.description } };
      return reply.code(201).header('location', `/api/v1/secrets/${created.name}`).send(created);
    },
  );

  app.get(
    '/secrets/:name',
    {
      config: { access: 'viewer' },
      schema: { tags: ['secrets'], summary: "Get one secret's metadata", params: SecretParams, response: { 200: SecretMetadata } },
    },
    async (request) => secrets.get(request.params.name),
  );

  app.put(
    '/secrets/:name',
    {
      config: { access: 'operator', audit: 'secret.update' },
      preValidation: async (request) => auditBeforeValidation(request),
      schema: {
        tags: ['secrets'],
        summary: "Change a secret's value and/or description",
        description: 'At least one of `value` and `description`. Sending a value (even the same one) raises the version by one.',
        params: SecretParams,
        body: UpdateSecretRequest,
        response: { 200: SecretMetadata },
      },
    },
    async (request) => {
      const { secret, valueChanged, descriptionChanged } = secrets.update(request.params.name, request.body, request.auth!.operator.operator_id);
      request.auditOverride = {
        target: secret.name,
        details: { version: secret.version, rotated: valueChanged, ...(descriptionChanged ? { description: secret.description } : {}) },
      };
      return secret;
    },
  );

  app.delete(
    '/secrets/:name',
    {
      config: { access: 'operator', audit: 'secret.delete' },
      preValidation: async (request) => auditBeforeValidation(request),
      schema: {
        tags: ['secrets'],
        summary: 'Delete a secret',
        description: 'Refused with 409 `secret-in-use` while a module uses it (the detail names the modules).',
        params: SecretParams,
        response: { 204: { type: 'null', description: 'Deleted' }, 409: problemResponse('A module uses the secret') },
      },
    },
    async (request, reply) => {
      const removed = secrets.remove(request.params.name);
      request.auditOverride = { target: removed.name, details: { version: removed.version } };
      return reply.code(204).send(null);
    },
  );
};
