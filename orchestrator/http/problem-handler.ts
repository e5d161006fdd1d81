import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldError } from './errors.js';
import { HttpError } from './errors.js';

const PROBLEM_TYPE_BASE = 'https://corral.dev/problems/';

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function fieldErrors(context: string | undefined, issues: AjvIssue[]): FieldError[] {
  return issues.map((issue) => {
    const segments = [context ?? 'body', ...(issue.instancePath ?? '').split('/').filter(Boolean)];
    if (issue.keyword === 'required') segments.push(String(issue.params?.missingProperty));
    if (issue.keyword === 'additionalProperties') {
      segments.push(String(issue.params?.additionalProperty));
      return { field: segments.join('.'), message: 'unknown field' };
    }
    return { field: segments.join('.'), message: issue.message ?? 'is invalid' };
  });
}

/** The body types a route takes: its per-type body schemas (e.g. modules also take YAML), else JSON. */
function acceptedTypes(request: FastifyRequest): string[] {
  const body = (request.routeOptions.schema as { body?: { content?: Record<string, unknown> } } | undefined)?.body;
  return body?.content ? Object.keys(body.content) : ['application/json'];
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  instance?: string;
  errors?: FieldError[];
}

/** Maps anything thrown by a handler or by Fastify itself onto one problem body. */
export function toProblem(err: FastifyError | HttpError | Error, request: FastifyRequest): ProblemBody {
  const base = (status: number, code: string, title: string, detail?: string, errors?: FieldError[]): ProblemBody => ({
    type: PROBLEM_TYPE_BASE + code,
    title,
    status,
    code,
    ...(detail ? { detail } : {}),
    instance: request.url.split('?')[0],
    ...(errors?.length ? { errors } : {}),
  });
  if (err instanceof HttpError) return base(err.status, err.code, err.title, err.message, err.errors);
  const fe = err as FastifyError & { validationContext?: string };
  if (fe.validation) {
    const errors = fieldErrors(fe.validationContext, fe.validation as AjvIssue[]);
    const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return base(400, 'validation-failed', 'Invalid request', detail, errors);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return base(413, 'body-too-large', 'Request body too large', fe.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return base(415, 'unsupported-media-type', 'Unsupported media type', `send ${acceptedTypes(request).join(' or ')}; got ${request.headers['content-type'] ?? 'none'}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return base(400, 'invalid-json', 'Invalid JSON', 'the body is empty but the content type says JSON', [{ field: 'body', message: 'empty' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return base(400, 'invalid-json', 'Invalid JSON', fe.message, [{ field: 'body', message: fe.message }]);
  }
  if (fe.statusCode === 400 && err instanceof SyntaxError) {
    return base(400, 'invalid-json', 'Invalid JSON', err.message, [{ field: 'body', message: err.message }]);
  }
  if (fe.statusCode === 429) return base(429, 'rate-limited', 'Too many requests', fe.message);
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return base(fe.statusCode, (fe.code ?? 'client-error').toLowerCase().replace(/_/g, '-'), 'Bad request', fe.message);
  }
  return base(500, 'internal-error', 'Internal error', `something went wrong on the server; quote request id ${request.id}`);
}

export function sendProblem(reply: FastifyReply, problem: ProblemBody, headers?: Record<string, string>): FastifyReply {
  reply.request.problemCode = problem.code;
  if (headers) reply.headers(headers);
  return reply.code(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const problem = toProblem(err as FastifyError, request);
    if (problem.status >= 500) request.log.error({ err }, 'request failed');
    return sendProblem(reply, problem, err instanceof HttpError ? err.headers : undefined);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendProblem(reply, {
      type: PROBLEM_TYPE_BASE + 'route-not-found',
      title: 'Not found',
      status: 404,
      code: 'route-not-found',
      detail: `no route ${request.method} ${path}; see /api/v1/openapi.json`,
      instance: path,
    });
  });
}
