import { z } from 'zod';
import type { Config } from '../shared/config.ts';
import type { RouteDef } from './route.ts';

// /openapi.json (OpenAPI 3.1) is generated from the routes' own zod schemas.

type Json = Record<string, unknown>;

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'Problem', description: 'RFC 9457 problem details with a stable machine code.' });

/**
 * JSON Schema 2020-12 for a zod schema. Schemas named with .meta({ id }) land in
 * components.schemas (shared by every operation) and are referenced from there.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, Json>): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  delete out.$defs;
  const rewrite = (v: unknown): unknown =>
    JSON.parse(JSON.stringify(v).replaceAll('"#/$defs/', '"#/components/schemas/'), (key, value) =>
      key === 'pattern' && typeof value === 'string' ? asciiDigits(value) : value,
    );
  for (const [name, def] of Object.entries(defs)) {
    const key =
      io === 'input' && components[name] && !sameJson(components[name], rewrite(def)) ? `${name}Input` : name;
    components[key] = rewrite(def) as Json;
  }
  const id = (out.id ?? undefined) as string | undefined;
  delete out.id;
  if (id) {
    components[id] = rewrite(out) as Json;
    return { $ref: `#/components/schemas/${id}` };
  }
  return rewrite(out) as Json;
}
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A pattern with `\d` spelled [0-9]: JavaScript's \d is ASCII digits, but other regex engines (Python,
 * .NET, many validators) read it as any Unicode digit, so the document would allow more than the
 * service accepts.
 */
export function asciiDigits(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      out += next === 'd' ? (inClass ? '0-9' : '[0-9]') : c + next;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Calls allowed per rolling hour', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Calls left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'Epoch seconds when the oldest counted call leaves the window',
    schema: { type: 'integer' },
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request: parameters invalid',
  401: 'Missing or invalid API key',
  403: 'Tier, variant or subscription does not allow this call',
  404: 'Not found',
  415: 'The body is not sent as application/json',
  413: 'Request body too large',
  429: 'Rate limit exceeded; retry after the window resets (Retry-After)',
  500: 'Server error',
  503: 'The database is unreachable for the moment; retry after Retry-After seconds',
};

/** Errors without a schema of their own answer a problem body. */
const PROBLEM_CONTENT = {
  'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
};

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(def: RouteDef, components: Record<string, Json>): Json[] {
  const out: Json[] = [];
  for (const where of ['query', 'params'] as const) {
    const schema = def.request?.[where];
    if (!schema) continue;
    const js = jsonSchema(schema, 'input', components);
    const props = (js.properties ?? {}) as Record<string, Json>;
    const required = new Set((js.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries(props)) {
      const { description, ...rest } = s;
      out.push({
        name,
        in: where === 'params' ? 'path' : 'query',
        required: where === 'params' ? true : required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

export function buildOpenApi(routes: RouteDef[], config: Config): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const components: Record<string, Json> = {};
  jsonSchema(ProblemSchema, 'output', components);
  for (const def of routes) {
    if (def.hidden) continue;
    const p = toOpenApiPath(def.path);
    paths[p] ??= {};
    const responses: Json = {};
    for (const [status, spec] of Object.entries(def.responses)) {
      const content = spec.schema
        ? {
            [spec.contentType ?? 'application/json']: {
              schema: jsonSchema(spec.schema, 'output', components),
            },
          }
        : spec.contentType
          ? { [spec.contentType]: { schema: { type: 'string' } } }
          : Number(status) >= 400
            ? PROBLEM_CONTENT
            : undefined;
      responses[status] = {
        description: spec.description,
        headers: { ...RATE_HEADERS, ...(spec.headers ?? {}) },
        ...(content ? { content } : {}),
      };
    }
    const errorStatuses = [400, 429, 500, 503];
    if (def.request?.body) errorStatuses.push(413);
    if (def.access.kind === 'key') errorStatuses.push(401, 403);
    if (def.access.kind === 'optional-key') errorStatuses.push(401);
    if (def.path.includes(':')) errorStatuses.push(404);
    if (def.request?.body) errorStatuses.push(415);
    for (const s of errorStatuses) {
      responses[String(s)] ??= {
        description: ERROR_TEXT[s] ?? 'Error',
        headers:
          s === 429 || s === 503
            ? {
                ...RATE_HEADERS,
                'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
              }
            : RATE_HEADERS,
        content: PROBLEM_CONTENT,
      };
    }
    const op: Json = {
      operationId: def.operationId,
      summary: def.summary,
      ...(def.description ? { description: def.description } : {}),
      tags: def.tags,
      parameters: parameters(def, components),
      responses,
      // An optional key: either no security requirement or the bearer key.
      security:
        def.access.kind === 'key'
          ? [{ bearerAuth: [] }]
          : def.access.kind === 'optional-key'
            ? [{}, { bearerAuth: [] }]
            : [],
    };
    if (def.access.kind === 'key') {
      op['x-sightline-access'] = { variants: def.access.variants, tiers: def.access.tiers ?? 'any' };
    }
    if (def.request?.body) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: jsonSchema(def.request.body, 'input', components) } },
      };
    }
    paths[p][def.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sightline API',
      version: '1.0.0',
      description:
        'Website scanning, audit and monitoring (variant A) and agent readability (variant B). Authenticate with `Authorization: Bearer <API_KEY>`. Errors are application/problem+json.',
    },
    servers: [{ url: config.publicBaseUrl }],
    tags: [...new Set(routes.flatMap((r) => r.tags))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'sl_live_… (A) or ar_… (B) API key' },
      },
      schemas: components,
    },
  };
}
