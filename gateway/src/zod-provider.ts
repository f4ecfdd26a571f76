// Route schemas written in zod: Fastify validates params, query and body with them and
// types the handlers from them (the data plane calls `validated` itself). A failed check
// becomes a ValidationError naming the field. Response schemas type what a handler gives
// (their output side: a Date) and document the wire (their input side: its ISO string).

import { ValidationError } from '@spendgate/core';
import type { FastifyBaseLogger, FastifyInstance, FastifySchemaCompiler, FastifySerializerCompiler, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';

export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
}

/** The value at `path` inside `data`, or undefined when nothing is there. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const step of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[step];
  }
  return value;
}

/** `data` checked against `schema`, or the ValidationError naming the first field that is wrong. */
export function validated<S extends z.ZodType>(schema: S, data: unknown, part: string): { value: z.output<S> } | { error: ValidationError } {
  const input = data ?? (part === 'body' ? undefined : {});
  const result = schema.safeParse(input);
  if (result.success) return { value: result.data };
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : part;
  const message =
    issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined
      ? `${field} is required`
      : `${field}: ${issue.message}`;
  return { error: new ValidationError(field, message) };
}

const zodValidator: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) =>
    validated(schema, data, httpPart ?? 'body');

/**
 * Answers are written with JSON.stringify, byte for byte as without a schema (nothing is
 * dropped or reformatted); the written JSON is then checked against the route's response
 * schema, and one that does not match is logged as the bug it is (the caller still gets it).
 */
const checkedJson =
  (log: FastifyBaseLogger): FastifySerializerCompiler<z.ZodType> =>
  ({ schema, method, url, httpStatus }) =>
  (data) => {
    const json = JSON.stringify(data);
    const checked = schema.safeParse(JSON.parse(json));
    if (!checked.success) {
      log.error({ route: `${method} ${url}`, status: httpStatus, issue: checked.error.issues[0] }, 'an answer does not match its documented schema');
    }
    return json;
  };

/** Installs the zod validator and answer serializer on an instance; returns it typed for zod schemas. */
export function useZod(app: FastifyInstance) {
  app.setValidatorCompiler(zodValidator);
  app.setSerializerCompiler(checkedJson(app.log));
  return app.withTypeProvider<ZodTypeProvider>();
}
