import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_MODULE_BYTES } from '../../common/modules/spec.js';
import { ModuleDetails, ModuleParams, ModuleQuery, ModuleSummary, ModuleText, ModuleUploadRequest, ModuleUploadResponse } from '../../common/schemas/modules.js';
import { ListOf, ListQuery } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';
import { BadRequest } from '../http/errors.js';

/** The YAML media types POST /modules takes besides JSON. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export const moduleRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { modules } = services;

  // Scoped to this plugin: only POST /modules reads YAML, as a plain string.
  app.addContentTypeParser(YAML_MEDIA_TYPES, { parseAs: 'string', bodyLimit: MAX_MODULE_BYTES }, (_request, body, done) => {
    done(null, body);
  });
  // One body schema per media type: Fastify validates against the one the request's
  // content type names, and the OpenAPI document shows each.
  const uploadBody = {
    content: {
      'application/json': { schema: ModuleUploadRequest },
      ...Object.fromEntries(YAML_MEDIA_TYPES.map((t) => [t, { schema: ModuleText }])),
    },
  };

  app.get(
    '/modules',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['modules'],
        summary: 'List all modules',
        description: 'Ordered by name; each with its current revision, content hash, resource count and the secret names it references.',
        querystring: ListQuery,
        response: { 200: ListOf(ModuleSummary) },
      },
    },
    async (request) => modules.list(request.query),
  );

  app.post(
    '/modules',
    {
      config: { access: 'operator', audit: 'module.upload' },
      bodyLimit: MAX_MODULE_BYTES,
      // The module text never reaches the audit log, not even for a refused upload.
      preValidation: async (request) => {
        request.auditOverride = { target: null, details: {} };
      },
      schema: {
        tags: ['modules'],
        summary: 'Upload a module',
        description:
          'Body: JSON `{content: "<YAML>"}`, or the YAML itself as `application/yaml` / `text/yaml`; at most 2 MiB (413 beyond). ' +
          'The name comes from the YAML. A new name answers 201 (`result: created`); a changed text of a known name adds a revision ' +
          'and answers 200 (`result: revised`); the same text as the current revision stores nothing and answers 200 (`result: unchanged`). ' +
          'An invalid module answers 400 `invalid-module` with one `errors[]` entry per problem (field `body.content`, `line`, `resource`) and stores nothing.',
        body: uploadBody,
        response: {
          200: ModuleUploadResponse,
          201: ModuleUploadResponse,
          400: problemResponse('The module is invalid: errors[] names each line and resource'),
          413: problemResponse('The body or the module is larger than 2 MiB'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as unknown;
      // No content type means no body schema ran: say what to send instead of failing on it.
      if (typeof body !== 'string' && (typeof body !== 'object' || body === null)) {
        throw new BadRequest('send {"content": "<YAML>"} as application/json, or the YAML itself as application/yaml', [{ field: 'body', message: 'required' }], 'validation-failed');
      }
      const text = typeof body === 'string' ? body : (body as ModuleUploadRequest).content;
      const { result, module } = modules.upload(text, request.auth!.operator.operator_id);
      request.auditOverride = { target: module.name, details: { result, revision: module.current_revision, content_hash: module.content_hash } };
      return reply.code(result === 'created' ? 201 : 200).send({ ...module, result });
    },
  );

  app.get(
    '/modules/:name',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['modules'],
        summary: "Get a module's details and content",
        description: 'The current revision, or `?revision=N`; always with the list of every revision and its hash.',
        params: ModuleParams,
        querystring: ModuleQuery,
        response: { 200: ModuleDetails },
      },
    },
    async (request) => modules.get(request.params.name, request.query.revision),
  );

  app.delete(
    '/modules/:name',
    {
      config: { access: 'operator', audit: 'module.delete' },
      schema: {
        tags: ['modules'],
        summary: 'Delete a module',
        description: 'Removes every revision. Refused with 409 `module-in-use`, naming the assignments, while an assignment uses it.',
        params: ModuleParams,
        response: { 204: { type: 'null', description: 'Deleted' }, 409: problemResponse('An assignment uses the module') },
      },
    },
    async (request, reply) => {
      const removed = modules.remove(request.params.name);
      request.auditOverride = { target: request.params.name, details: removed };
      return reply.code(204).send(null);
    },
  );
};
