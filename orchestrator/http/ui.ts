import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import path from 'node:path';

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Corral</title>
<p>The Corral web UI has not been built. Run <code>npm run build</code> in the Corral checkout and reload.</p>
<p>The API is up: <a href="/api/v1/status">/api/v1/status</a>, <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>`;

/** Serves the built renderer from the same origin as the API. */
export async function registerUi(app: FastifyInstance, uiDir: string): Promise<void> {
  if (existsSync(path.join(uiDir, 'index.html'))) {
    await app.register(fastifyStatic, { root: uiDir, prefix: '/', wildcard: false, index: ['index.html'], maxAge: 0 });
    // Hashed asset names change with every build, so only index.html must never be cached.
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.url === '/' || request.url.startsWith('/index.html')) reply.header('cache-control', 'no-cache');
      return payload;
    });
    return;
  }
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html').send(NOT_BUILT));
}
