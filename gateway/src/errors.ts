/**
 * The one error registry. Services throw these; one error handler per surface maps
 * them to a response (the API envelope on /api, the provider's error shape on /v1),
 * hides the internals of anything unexpected and always names the request id.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
