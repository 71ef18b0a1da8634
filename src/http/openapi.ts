// OpenAPI 3.1, generated from the route table (http/routes.ts: each JSON route's operation) and the
// zod schemas the handlers validate with, so it cannot drift.
import { z } from "zod";

export interface ApiResponse {
  description: string;
  contentType?: string;
  schema?: z.ZodType;
}

export interface ApiOperation {
  method: "get" | "post" | "put" | "delete" | "patch";
  path: string;
  summary: string;
  tags: string[];
  /** Header parameters: an object schema whose fields are the headers. */
  headers?: z.ZodObject;
  query?: z.ZodObject;
  /** Request body schema and the content types it may come in. */
  body?: { schema: z.ZodType; contentTypes: string[]; required?: boolean };
  security?: Array<Record<string, string[]>>;
  responses: Record<number, ApiResponse>;
}

export const ErrorSchema = z
  .object({
    error: z.string().meta({ description: "snake_case error code" }),
    error_description: z.string().meta({ description: "one human sentence" }),
  })
  .meta({ id: "Error" });

const jsonSchema = (s: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
};

function parameters(where: "header" | "query", obj: z.ZodObject | undefined) {
  if (!obj) return [];
  const shape = obj.shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, s]) => {
    const schema = jsonSchema(s);
    const { description, ...rest } = schema;
    return {
      name,
      in: where,
      required: !s.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** The OpenAPI document of these operations (the route table's, in its order). */
export function openApiDocument(
  ops: readonly ApiOperation[],
  info: { title: string; version: string; serverUrl: string },
): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    const body = op.body;
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? "application/json"]: { schema: jsonSchema(r.schema) } } } : {}),
      };
    }
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      tags: op.tags,
      parameters: [...parameters("header", op.headers), ...parameters("query", op.query)],
      ...(body
        ? {
            requestBody: {
              required: body.required ?? false,
              content: Object.fromEntries(body.contentTypes.map((t) => [t, { schema: jsonSchema(body.schema) }])),
            },
          }
        : {}),
      ...(op.security ? { security: op.security } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        basic: { type: "http", scheme: "basic" },
      },
    },
  };
}

export const errorResponse = (description: string): ApiResponse => ({ description, schema: ErrorSchema });
