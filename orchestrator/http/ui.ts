import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Corral</title>
<p>The Corral web UI has not been built. Run <code>npm run build</code> in the Corral checkout and reload.</p>
<p>The API is up: <a href="/api/v1/status">/api/v1/status</a>, <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>`;

/**
 * The page holds signing keys, so it gets a strict Content-Security-Policy: only
 * its own scripts, plus the inline theme script in index.html allowed by hash
 * (computed from the built file, so editing that script cannot silently break it).
 */
export function contentSecurityPolicy(indexHtml: string): string {
  const hashes = [...indexHtml.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    // Svelte sets style attributes at run time (transitions, widths).
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Serves the built renderer from the same origin as the API. */
export async function registerUi(app: FastifyInstance, uiDir: string): Promise<void> {
  const index = path.join(uiDir, 'index.html');
  if (!existsSync(index)) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html').send(NOT_BUILT));
    return;
  }
  const csp = contentSecurityPolicy(readFileSync(index, 'utf8'));
  await app.register(fastifyStatic, { root: uiDir, prefix: '/', wildcard: false, index: ['index.html'], maxAge: 0 });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/api/')) return payload;
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (request.url === '/' || request.url.startsWith('/index.html')) {
      reply.header('content-security-policy', csp);
      // Hashed asset names change with every build; only index.html must never be cached.
      reply.header('cache-control', 'no-cache');
    }
    return payload;
  });
}
