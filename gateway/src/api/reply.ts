// The control-plane response envelope: {success, data, message} for every answer,
// and one error handler that fills it for failures (5xx details are never shown).

import { AppError, FormError, ValidationError } from '@spendgate/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export function ok<T>(data: T, message = 'OK') {
  return { success: true as const, data, message };
}

export function sendApiError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    return reply.code(error.statusCode).headers(error.headers).send({
      success: false,
      data: null,
      message: error.message,
      code: error.code,
      ...(error instanceof ValidationError ? { field: error.field } : {}),
      ...(error instanceof FormError ? { errors: error.errors } : {}),
      requestId: request.id,
    });
  }
  const statusCode = (error as FastifyError).statusCode;
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    const message = error.message.includes('JSON') ? `body: ${error.message}` : error.message;
    return reply.code(statusCode).send({ success: false, data: null, message, code: 'invalid_request', field: 'body', requestId: request.id });
  }
  request.log.error({ err: error }, 'unexpected error on the API');
  return reply.code(500).send({ success: false, data: null, message: 'Internal server error', code: 'internal_error', requestId: request.id });
}
