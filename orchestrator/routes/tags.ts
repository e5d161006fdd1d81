import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AgentParams, ReplaceTagsRequest, SetTagRequest, TagParams, TagsListResponse, TagsResponse } from '../../common/schemas/agents.js';
import type { Services } from '../context.js';

export const tagRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { agents } = services;

  app.put(
    '/agents/:node_id/tags',
    {
      config: { access: 'operator', audit: 'agent.tags_replace' },
      schema: {
        tags: ['tags'],
        summary: 'Replace all tags on an agent',
        description: 'Body: the complete tag set as an object `{key: value}` (at most 100). Keys `[a-z0-9][a-z0-9._/-]{0,62}`, values up to 255 characters.',
        params: AgentParams,
        body: ReplaceTagsRequest,
        response: { 200: TagsResponse },
      },
    },
    async (request) => {
      const before = agents.tags(request.params.node_id);
      const tags = agents.replaceTags(request.params.node_id, request.body);
      request.auditOverride = { target: request.params.node_id, details: { before, after: tags } };
      return { node_id: request.params.node_id, tags };
    },
  );

  app.put(
    '/agents/:node_id/tags/:key',
    {
      config: { access: 'operator', audit: 'agent.tag_set' },
      schema: { tags: ['tags'], summary: 'Set a single tag', params: TagParams, body: SetTagRequest, response: { 200: TagsResponse } },
    },
    async (request) => {
      const { node_id, key } = request.params;
      const before = agents.tags(node_id)[key] ?? null;
      const tags = agents.setTag(node_id, key, request.body.value);
      request.auditOverride = { target: node_id, details: { key, before, after: request.body.value } };
      return { node_id, tags };
    },
  );

  app.delete(
    '/agents/:node_id/tags/:key',
    {
      config: { access: 'operator', audit: 'agent.tag_remove' },
      schema: { tags: ['tags'], summary: 'Remove a single tag', params: TagParams, response: { 200: TagsResponse } },
    },
    async (request) => {
      const { node_id, key } = request.params;
      const before = agents.tags(node_id)[key] ?? null;
      const tags = agents.deleteTag(node_id, key);
      request.auditOverride = { target: node_id, details: { key, before } };
      return { node_id, tags };
    },
  );

  app.get(
    '/tags',
    {
      config: { access: 'viewer' },
      schema: { tags: ['tags'], summary: 'List all distinct tag keys and values', description: 'Each key with its values and how many agents carry each.', response: { 200: TagsListResponse } },
    },
    async () => ({ items: agents.tagSummary() }),
  );
};
