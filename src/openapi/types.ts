/** The parts of an OpenAPI 3.1 document this generator writes (a JSON Schema 2020-12 object for schemas). */
export type JsonSchema = { [key: string]: unknown };

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  description?: string;
  style?: string;
  explode?: boolean;
  schema: JsonSchema;
}

export interface MediaType {
  schema: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Record<string, { description?: string; schema: JsonSchema }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  tags: string[];
  summary?: string;
  description?: string;
  deprecated?: boolean;
  security: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, unknown>;
    responses?: Record<string, Response>;
  };
}

/** Reads a descriptor's doc comment (source info is only in a plugin's request, not in the runtime descriptors). */
export type Describe = (desc: { kind: string }) => string | undefined;
