import type { Problem } from '../../../../common/schemas/shared.js';

/** The orchestrator answered with an application/problem+json body. */
export class ApiError extends Error {
  constructor(
    readonly problem: Problem,
    /** Whether the request carried a session token (a 401 then means the session ended). */
    readonly authenticated: boolean,
  ) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
  }

  get status(): number {
    return this.problem.status;
  }

  get code(): string {
    return this.problem.code;
  }
}

/** The request got no answer at all: server down, network gone, TLS refused. */
export class NetworkError extends Error {
  constructor(readonly url: string, cause: unknown) {
    super(`no answer from ${url}`, { cause });
    this.name = 'NetworkError';
  }
}

/** Something in the browser failed before any request: a key that will not import, no IndexedDB, ... */
export class LocalError extends Error {
  constructor(
    readonly title: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'LocalError';
  }
}

/** Turns a non-problem error answer (a proxy's HTML page, say) into a problem body. */
export function problemFrom(status: number, statusText: string, body: unknown): Problem {
  if (body && typeof body === 'object' && 'title' in body && 'status' in body) return body as Problem;
  return {
    type: 'about:blank',
    title: statusText || `HTTP ${status}`,
    status,
    code: `http-${status}`,
    detail: typeof body === 'string' && body.length < 300 ? body : `the server answered ${status} without a problem description`,
  };
}
