/**
 * The one error registry. Services throw these; one error handler per surface maps
 * them to a response (the API envelope on /api, the provider's error shape on /v1),
 * hides the internals of anything unexpected and always names the request id.
 */
export class AppError extends Error {
  /** Headers the answer carries, e.g. `retry-after`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options);
    this.headers = options?.headers ?? {};
  }
}

/** Bad input: 400, names the field it is about. */
export class ValidationError extends AppError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(400, 'invalid_request', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this') {
    super(403, 'forbidden', message);
  }
}

/** The account's email is not verified yet, and the route needs that: 403 `email_not_verified`. */
export class EmailNotVerifiedError extends AppError {
  constructor() {
    super(403, 'email_not_verified', 'Verify your email address first: enter the code we emailed you, or ask for a new one.');
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super(404, 'not_found', `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

/** The provider could not be reached or answered badly: 502 (bad answer / connect), 504 (timeout). */
export class UpstreamError extends AppError {
  constructor(statusCode: 502 | 503 | 504, message: string, cause?: unknown) {
    super(statusCode, statusCode === 504 ? 'upstream_timeout' : 'upstream_unavailable', message, { cause });
  }
}

/** Too many tries: 429; the answer carries Retry-After. */
export class TooManyRequestsError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many attempts. Please wait and try again.',
    headers: Record<string, string> = {},
  ) {
    super(429, 'rate_limited', message, { headers: { ...headers, 'retry-after': String(retryAfterSeconds) } });
  }
}

/** A submitted form with one message per field that is wrong: 400 with `errors`. */
export class FormError extends AppError {
  constructor(readonly errors: string[]) {
    super(400, 'invalid_form', errors.join(' '));
  }
}

/** A feature of a plan the team is not on: 403 `plan_required`, the message naming the plan that has it. */
export class PlanRequiredError extends AppError {
  constructor(message: string) {
    super(403, 'plan_required', message);
  }
}

/** A plan allowance is used up and the plan cannot charge for more: 402. */
export class PlanLimitError extends AppError {
  constructor(message: string) {
    super(402, 'plan_limit', message);
  }
}
