// Reads the Endpoints table of the API contract (../shared/spec/management-api.md,
// beside the clone) so tests follow the spec instead of a copy of it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_FILE = path.resolve(REPO_ROOT, '..', 'shared', 'spec', 'management-api.md');
export const API_PREFIX = '/api/v1';

export interface SpecRoute {
  method: string;
  /** As written in the spec, relative to /api/v1, e.g. /operators/{operator_id}. */
  path: string;
  purpose: string;
  adminOnly: boolean;
}

/** Parses the "| Method | Path | Purpose | Admin only |" table under "## Endpoints". */
export function parseEndpointsTable(markdown: string): SpecRoute[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^##\s+Endpoints\s*$/.test(l));
  if (start < 0) throw new Error('the spec has no "## Endpoints" section');
  const routes: SpecRoute[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^##\s/.test(line)) break;
    const cells = line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
    if (cells.length !== 4) continue;
    const [method, routePath, purpose, admin] = cells as [string, string, string, string];
    if (!/^(GET|POST|PUT|PATCH|DELETE)$/.test(method)) continue; // header and separator rows
    if (!routePath.startsWith('/')) throw new Error(`spec row with an odd path: ${line}`);
    if (admin !== 'yes' && admin !== 'no') throw new Error(`spec row with an odd Admin only cell: ${line}`);
    routes.push({ method, path: routePath, purpose, adminOnly: admin === 'yes' });
  }
  if (!routes.length) throw new Error('the Endpoints table is empty');
  return routes;
}

export function loadSpecRoutes(file = SPEC_FILE): SpecRoute[] {
  return parseEndpointsTable(readFileSync(file, 'utf8'));
}

/** Path with every parameter name erased: /operators/{operator_id} -> /operators/{}. */
export function pathShape(p: string): string {
  return p.replace(/\{[^}]+\}/g, '{}');
}

type OpenApiPaths = Record<string, Record<string, unknown>>;

/** Whether the OpenAPI document has an operation of that shape (parameter names aside). */
export function isBuilt(route: SpecRoute, paths: OpenApiPaths): boolean {
  const shape = pathShape(API_PREFIX + route.path);
  return Object.entries(paths).some(([p, ops]) => pathShape(p) === shape && route.method.toLowerCase() in ops);
}

export function routeName(route: Pick<SpecRoute, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
