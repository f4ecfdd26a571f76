/**
 * The OpenAPI 3.1 document of the control plane, generated from the zod schemas the
 * routes validate with and answer in (collected as routes are added), served as JSON at
 * /api/docs/openapi.json and as a readable page at /api/docs. Every failure answers the
 * one error envelope, described once under components.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { z } from 'zod';
import { cspHeader, PAGE_CSP_BASE } from '../security/browser-headers.ts';
import { ErrorAnswer } from './answers.ts';

declare module 'fastify' {
  interface FastifySchema {
    /** One line for the OpenAPI document. */
    summary?: string;
    /** A route that answers a file, not the JSON envelope: its media type and what the file holds. */
    download?: FileDownload;
  }
}

interface FileDownload {
  /** Its media type, or each it may have (chosen by a query parameter). */
  contentType: string | readonly string[];
  description: string;
}

interface CollectedRoute {
  method: string;
  url: string;
  schema: { body?: z.ZodType; querystring?: z.ZodType; params?: z.ZodType; response?: Record<string, z.ZodType>; summary?: string; download?: FileDownload };
  isPublic: boolean;
}

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const object = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

const ERROR_ANSWER = { $ref: '#/components/schemas/ErrorAnswer' };
const failure = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_ANSWER } } });

/** What a route answers: its response schemas by status (the wire side) and the file it downloads, then the failures. */
function responses(route: CollectedRoute) {
  const answers: [string, unknown][] = Object.entries(route.schema.response ?? {}).map(([status, schema]) => [
    status,
    { description: status === '201' ? 'Created' : 'Success', content: { 'application/json': { schema: jsonSchema(schema) } } },
  ]);
  const download = route.schema.download;
  if (download !== undefined) {
    // A route answering JSON or a file (by a format= query) documents both under its 200.
    const types = typeof download.contentType === 'string' ? [download.contentType] : download.contentType;
    const files = Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', description: download.description } }]));
    const json = answers.find(([status]) => status === '200')?.[1] as { content: Record<string, unknown> } | undefined;
    if (json) Object.assign(json.content, files);
    else answers.push(['200', { description: download.description, content: files }]);
  }
  return {
    ...Object.fromEntries(answers),
    '400': failure('Bad input: `field` names the field'),
    ...(route.isPublic ? {} : { '401': failure('No valid session') }),
    default: failure('Any other failure: `code` says which'),
  };
}

export function buildOpenApiDocument(routes: CollectedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    paths[path] = paths[path] ?? {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.schema.summary ?? `${route.method} ${path}`,
      tags: [path.split('/')[2] ?? 'api'],
      parameters: [...parameters(route.schema.params, 'path'), ...parameters(route.schema.querystring, 'query')],
      ...(route.schema.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.schema.body) } } } }
        : {}),
      responses: responses(route),
      security: route.isPublic ? [] : [{ bearer: [] }],
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Spendgate control-plane API',
      version: '1.0.0',
      description: 'Every answer is {success, data, message}; every failure is the ErrorAnswer envelope.',
    },
    servers: [{ url: '/' }],
    components: {
      schemas: { ErrorAnswer: jsonSchema(ErrorAnswer) },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
    paths,
  };
}

const PAGE_STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem}
details{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.4rem .8rem}
summary{cursor:pointer}code{font-weight:600}pre{background:#f6f6f8;padding:.6rem;overflow:auto;font-size:13px}
.m{display:inline-block;width:4.5rem;font-weight:700;color:#6d28d9}`;

const PAGE_SCRIPT = `
fetch('docs/openapi.json').then((r) => r.json()).then((doc) => {
  const ops = document.getElementById('ops');
  ops.textContent = '';
  for (const [path, methods] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(methods)) {
    const d = document.createElement('details');
    const s = document.createElement('summary');
    s.innerHTML = '<span class="m"></span><code></code>';
    s.children[0].textContent = method.toUpperCase();
    s.children[1].textContent = path + (op.security.length ? '' : '  (public)');
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify({ parameters: op.parameters, requestBody: op.requestBody, responses: op.responses }, null, 2);
    d.append(s, pre);
    ops.append(d);
  }
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Spendgate API</title>
<style>${PAGE_STYLE}</style></head>
<body><h1>Spendgate control-plane API</h1>
<p>The OpenAPI document: <a href="docs/openapi.json">openapi.json</a>. Every answer is <code>{success, data, message}</code>;
signed-in routes take <code>Authorization: Bearer &lt;token&gt;</code>.</p><div id="ops">Loading…</div>
<script>${PAGE_SCRIPT}</script></body></html>`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's CSP: its own inline style and script (by hash), and fetches of the document. */
const PAGE_CSP = cspHeader({
  'default-src': ["'none'"],
  'script-src': [sha256(PAGE_SCRIPT)],
  'style-src': [sha256(PAGE_STYLE)],
  'connect-src': ["'self'"],
  ...PAGE_CSP_BASE,
});

/** Collects every route added after this call until `serve` adds the document's own routes (not documented). */
export function createOpenApiCollector(app: FastifyInstance) {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({
        method,
        url: route.url,
        schema: (route.schema ?? {}) as CollectedRoute['schema'],
        isPublic: route.config?.public === true,
      });
    }
  });
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  return {
    serve(path: string) {
      const documented = [...routes];
      app.get(`${path}/openapi.json`, { config: { public: true } }, async () => {
        document = document ?? buildOpenApiDocument(documented);
        return document;
      });
      app.get(path, { config: { public: true } }, async (_request, reply) =>
        reply.type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP).send(PAGE),
      );
    },
  };
}
