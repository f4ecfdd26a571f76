/**
 * Checks the Stripe fake's answers against Stripe's OpenAPI 3.0 description: each answer's
 * path is matched to the description's path template (`/v1/customers/{customer}`), and its
 * body validated (Ajv) against the schema that path, method and status answer (`default`
 * for errors). OpenAPI's `nullable` becomes JSON Schema's null type; formats and Stripe's
 * `x-` extensions are not checked. Returns one line per problem, none when all conform.
 */
import { Ajv, type ValidateFunction } from 'ajv';

interface JsonSchema {
  [keyword: string]: unknown;
}

export interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema: `null` added to the type, or as an alternative. */
function withNullTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNullTypes);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as JsonSchema;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, withNullTypes(value)]));
  if (nullable !== true) return converted;
  if (typeof converted.type === 'string') return { ...converted, type: [converted.type, 'null'], ...(Array.isArray(converted.enum) ? { enum: [...converted.enum, null] } : {}) };
  return { anyOf: [converted, { type: 'null' }] };
}

export function checkAgainstOpenApi(spec: OpenApiDocument, answers: { method: string; path: string; status: number; body: unknown }[]): string[] {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ $id: 'stripe', components: withNullTypes(spec.components) as object });
  const templates = Object.keys(spec.paths).map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
  const validators = new Map<string, ValidateFunction>();
  const problems: string[] = [];
  for (const answer of answers) {
    // The most specific template: fewest parameters (`/v1/invoices/upcoming` before `/v1/invoices/{invoice}`).
    const matching = templates.filter(({ pattern }) => pattern.test(answer.path)).sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    const template = matching[0]?.template;
    const responses = template ? spec.paths[template]?.[answer.method.toLowerCase()]?.responses : undefined;
    const schema = (responses?.[String(answer.status)] ?? responses?.default)?.content?.['application/json']?.schema;
    const where = `${answer.method} ${answer.path} ${answer.status}`;
    if (!schema) {
      problems.push(`${where}: no such path, method and status in Stripe's description`);
      continue;
    }
    const key = `${template} ${answer.method} ${answer.status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(withNullTypes(schema)).replaceAll('"#/components/', '"stripe#/components/')) as object);
      validators.set(key, validate);
    }
    if (!validate(answer.body)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  return [...new Set(problems)];
}
