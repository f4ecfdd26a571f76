// Errors on the OpenAI-format surface, in OpenAI's own error shape so SDKs raise the
// right exception class: {"error": {"message", "type", "param", "code"}}.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../errors.ts';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

export function openAIErrorBody(statusCode: number, message: string, code: string, param: string | null = null) {
  return { error: { message, type: TYPE_BY_STATUS[statusCode] ?? 'api_error', param, code } };
}

export function sendOpenAIError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    const param = error instanceof ValidationError ? error.field : null;
    return reply.code(error.statusCode).send(openAIErrorBody(error.statusCode, error.message, error.code, param));
  }
  const statusCode = (error as FastifyError).statusCode;
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    return reply.code(statusCode).send(openAIErrorBody(statusCode, error.message, 'invalid_request'));
  }
  request.log.error({ err: error }, 'unexpected error on the data plane');
  return reply
    .code(500)
    .send(openAIErrorBody(500, `Internal error (request ${request.id})`, 'internal_error'));
}
