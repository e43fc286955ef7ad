/**
 * What the API reference page shows of the OpenAPI document, as plain data: the operations by
 * tag, each schema's type in words, its constraints and its fields. Kept apart from the markup so
 * the page stays simple HTML and this reading of JSON Schema can be tested on its own.
 */
import type { JsonSchema } from "@/lib/platform/openapi/schema";

export type Inline = { kind: "text" | "code" | "strong"; text: string };

/** The Markdown the document's descriptions use: paragraphs, `code` and **bold**. */
export function markdown(text: string): Inline[][] {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => inline(paragraph.replace(/\s*\n\s*/g, " ")));
}

function inline(text: string): Inline[] {
  const parts: Inline[] = [];
  // Code first: a `**` inside backticks is code, not bold.
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push({ kind: "text", text: text.slice(last, match.index) });
    parts.push(match[1] !== undefined ? { kind: "code", text: match[1] } : { kind: "strong", text: match[2] });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: "text", text: text.slice(last) });
  return parts;
}

/** A piece of a type's name: words, or the name of a schema of the document (a link). */
export type TypePart = { text: string } | { ref: string };

const SCHEMA_REF = "#/components/schemas/";

function refName(schema: JsonSchema): string | undefined {
  const ref = schema.$ref;
  return typeof ref === "string" && ref.startsWith(SCHEMA_REF) ? ref.slice(SCHEMA_REF.length) : undefined;
}

const asSchemas = (value: unknown): JsonSchema[] => (Array.isArray(value) ? (value as JsonSchema[]) : []);
const isNull = (schema: JsonSchema) => schema.type === "null";

/** The type of a value in words: `string`, `array of ObjectId`, `"a" | "b"`, `User | null`. */
export function typeOf(schema: JsonSchema): TypePart[] {
  const name = refName(schema);
  if (name) return [{ ref: name }];
  if ("const" in schema) return [{ text: JSON.stringify(schema.const) }];
  if (Array.isArray(schema.enum)) return [{ text: schema.enum.map((value) => JSON.stringify(value)).join(" | ") }];
  const variants = asSchemas(schema.anyOf ?? schema.oneOf);
  if (variants.length > 0) return join(variants.map(typeOf));
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === "string"
      ? [schema.type]
      : [];
  if (types.length === 0) {
    const merged = asSchemas(schema.allOf);
    return merged.length === 1 ? typeOf(merged[0]) : [{ text: "any" }];
  }
  return join(
    types.map((type): TypePart[] => {
      if (type === "array") {
        const items = schema.items as JsonSchema | undefined;
        return items ? [{ text: "array of " }, ...typeOf(items)] : [{ text: "array" }];
      }
      if (type === "object" && !schema.properties && schema.additionalProperties)
        return [{ text: "object (any keys)" }];
      return [{ text: type }];
    }),
  );
}

function join(alternatives: TypePart[][]): TypePart[] {
  const unique = alternatives.filter(
    (parts, index) => alternatives.findIndex((other) => JSON.stringify(other) === JSON.stringify(parts)) === index,
  );
  return unique.flatMap((parts, index) => (index === 0 ? parts : [{ text: " | " }, ...parts]));
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

function range(min: unknown, max: unknown, word: string): string | undefined {
  const low = typeof min === "number" ? min : undefined;
  const high = typeof max === "number" ? max : undefined;
  if (low !== undefined && high !== undefined) return low === high ? plural(low, word) : `${low}–${high} ${word}s`;
  if (low !== undefined && low > 0) return `at least ${plural(low, word)}`;
  if (high !== undefined) return `at most ${plural(high, word)}`;
  return undefined;
}

/** The limits a value must keep, in words (its own and those of the schemas it must also match). */
export function constraintsOf(schema: JsonSchema): Inline[][] {
  const out: Inline[][] = [];
  for (const part of [schema, ...asSchemas(schema.allOf).filter((member) => !refName(member))]) {
    const text = (words: string | undefined) => words && out.push([{ kind: "text", text: words }]);
    text(range(part.minLength, part.maxLength, "character"));
    text(range(part.minItems, part.maxItems, "item"));
    if (typeof part.minimum === "number" && typeof part.maximum === "number")
      text(`from ${part.minimum} to ${part.maximum}`);
    else if (typeof part.minimum === "number") text(`at least ${part.minimum}`);
    else if (typeof part.maximum === "number") text(`at most ${part.maximum}`);
    if (typeof part.format === "string") text(`format ${part.format}`);
    if (typeof part.pattern === "string")
      out.push([
        { kind: "text", text: "matches " },
        { kind: "code", text: part.pattern },
      ]);
    const items = part.items as JsonSchema | undefined;
    if (items && !refName(items) && typeof items.pattern === "string")
      out.push([
        { kind: "text", text: "each matches " },
        { kind: "code", text: items.pattern },
      ]);
  }
  if ("default" in schema)
    out.push([
      { kind: "text", text: "default " },
      { kind: "code", text: JSON.stringify(schema.default) },
    ]);
  for (const example of asSchemas(schema.examples))
    out.push([
      { kind: "text", text: "example " },
      { kind: "code", text: JSON.stringify(example) },
    ]);
  return out.filter(
    (parts, index) => out.findIndex((other) => JSON.stringify(other) === JSON.stringify(parts)) === index,
  );
}

export interface FieldView {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/** The named fields of an object value (or of the objects of an array, or of a nullable object). */
export function fieldsOf(schema: JsonSchema): FieldView[] {
  const object = objectOf(schema);
  if (!object) return [];
  const required = new Set(Array.isArray(object.required) ? (object.required as string[]) : []);
  return Object.entries(object.properties as Record<string, JsonSchema>).map(([name, field]) => ({
    name,
    required: required.has(name),
    schema: field,
  }));
}

function objectOf(schema: JsonSchema): JsonSchema | undefined {
  if (refName(schema)) return undefined;
  if (schema.properties && typeof schema.properties === "object" && Object.keys(schema.properties).length > 0)
    return schema;
  if (schema.items && typeof schema.items === "object") return objectOf(schema.items as JsonSchema);
  const variants = asSchemas(schema.anyOf ?? schema.oneOf).filter((variant) => !isNull(variant));
  return variants.length === 1 ? objectOf(variants[0]) : undefined;
}

export type Method = "get" | "post" | "put" | "patch" | "delete";
const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

export interface ParameterView {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface ResponseView {
  status: string;
  description: string;
  headers: { name: string; description?: string }[];
  body?: JsonSchema;
}

export interface OperationView {
  id: string;
  method: Method;
  path: string;
  summary: string;
  description?: string;
  authenticated: boolean;
  parameters: ParameterView[];
  body?: JsonSchema;
  responses: ResponseView[];
}

export interface TagView {
  id: string;
  name: string;
  description?: string;
  operations: OperationView[];
}

type Document = {
  info: { title: string; version: string; description?: string };
  openapi: string;
  tags?: { name: string; description?: string }[];
  paths: Record<string, Partial<Record<Method, Record<string, unknown>>>>;
  components: {
    schemas?: Record<string, JsonSchema>;
    parameters?: Record<string, JsonSchema>;
    headers?: Record<string, JsonSchema>;
  };
};

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** The document's operations grouped by tag, in the document's order, `$ref`s of parameters and headers resolved. */
export function tagsOf(document: Document): TagView[] {
  const component = (kind: "parameters" | "headers", value: JsonSchema): JsonSchema => {
    const ref = typeof value.$ref === "string" ? value.$ref : undefined;
    const prefix = `#/components/${kind}/`;
    return ref?.startsWith(prefix) ? (document.components[kind]?.[ref.slice(prefix.length)] ?? value) : value;
  };
  const byTag = new Map<string, TagView>();
  for (const tag of document.tags ?? [])
    byTag.set(tag.name, { id: `tag-${slug(tag.name)}`, name: tag.name, description: tag.description, operations: [] });

  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tagName = (operation.tags as string[] | undefined)?.[0] ?? "Other";
      if (!byTag.has(tagName)) byTag.set(tagName, { id: `tag-${slug(tagName)}`, name: tagName, operations: [] });
      const parameters = asSchemas(operation.parameters).map((raw) => {
        const parameter = component("parameters", raw);
        return {
          name: String(parameter.name),
          in: String(parameter.in),
          required: parameter.required === true,
          description: parameter.description as string | undefined,
          schema: (parameter.schema ?? {}) as JsonSchema,
        };
      });
      const requestBody = operation.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined;
      const responses = Object.entries(operation.responses as Record<string, JsonSchema>).map(([status, response]) => ({
        status,
        description: String(response.description ?? ""),
        headers: Object.entries((response.headers ?? {}) as Record<string, JsonSchema>).map(([name, header]) => ({
          name,
          description: component("headers", header).description as string | undefined,
        })),
        body: (response.content as Record<string, { schema: JsonSchema }> | undefined)?.["application/json"]?.schema,
      }));
      byTag.get(tagName)!.operations.push({
        id: String(operation.operationId),
        method,
        path,
        summary: String(operation.summary ?? `${method.toUpperCase()} ${path}`),
        description: operation.description as string | undefined,
        authenticated: !(Array.isArray(operation.security) && operation.security.length === 0),
        parameters,
        body: requestBody?.content?.["application/json"]?.schema,
        responses,
      });
    }
  }
  return [...byTag.values()].filter((tag) => tag.operations.length > 0);
}

/** The schema an error answer names (its body is that schema with the status and codes fixed). */
export function errorSchemaOf(body: JsonSchema | undefined): string | undefined {
  if (!body) return undefined;
  return refName(body) ?? asSchemas(body.allOf).map(refName).find(Boolean);
}
