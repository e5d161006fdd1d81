// Typed errors with a stable code; one handler (problem-handler.ts) turns them into problem+json.

export interface FieldError {
  field: string;
  message: string;
  /** For errors inside an uploaded text (a module): the 1-based line, and the resource id when in one. */
  line?: number;
  resource?: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail ?? title);
  }
}

export class BadRequest extends HttpError {
  constructor(detail: string, errors?: FieldError[], code = 'bad-request') {
    super(400, code, 'Bad request', detail, errors);
  }
}

export class Unauthorized extends HttpError {
  constructor(detail = 'Sign in first: send "Authorization: Bearer <token>" from POST /api/v1/auth/verify', code = 'unauthorized') {
    super(401, code, 'Authentication required', detail, undefined, { 'www-authenticate': 'Bearer realm="corral"' });
  }
}

export class Forbidden extends HttpError {
  constructor(detail: string, code = 'forbidden') {
    super(403, code, 'Forbidden', detail);
  }
}

export class NotFound extends HttpError {
  constructor(detail: string, code = 'not-found') {
    super(404, code, 'Not found', detail);
  }
}

export class Conflict extends HttpError {
  constructor(detail: string, code = 'conflict') {
    super(409, code, 'Conflict', detail);
  }
}

export class TooManyRequests extends HttpError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, 'rate-limited', 'Too many requests', detail, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class BadGateway extends HttpError {
  constructor(detail: string, code = 'bad-gateway') {
    super(502, code, 'Bad gateway', detail);
  }
}
