// Route schemas written in zod: Fastify validates params, query and body with them and
// types the handlers from them. A failed check becomes a ValidationError naming the field.
import type { FastifyInstance, FastifySchemaCompiler, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';
import { ValidationError } from './errors.ts';

export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

const zodValidator: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = schema.safeParse(data ?? (httpPart === 'body' ? undefined : {}));
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join('.') : httpPart === 'body' ? 'body' : String(httpPart);
    const message =
      issue.code === 'invalid_type' && issue.input === undefined
        ? `${field} is required`
        : `${field}: ${issue.message}`;
    return { error: new ValidationError(field, message) };
  };

/** Installs the zod validator on an instance; returns it typed for zod schemas. */
export function useZod(app: FastifyInstance) {
  app.setValidatorCompiler(zodValidator);
  return app.withTypeProvider<ZodTypeProvider>();
}
