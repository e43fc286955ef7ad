/**
 * The zod schemas of the routes as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), through
 * zod's own `z.toJSONSchema`. Requests are described by what a client sends (zod's input side),
 * responses by what the service answers (the output side).
 *
 * Where one side alone would misdescribe the schema:
 * - a pipe (`a.pipe(b)`): the client's value must pass both sides, so the output side's
 *   constraints (an e-mail pattern, a minimum length) are added with `allOf`;
 * - in an answer, a value a transform made (an id lowercased) is shown as what it was made from;
 * - a query parameter arrives as text and is coerced: `limit` is documented as the integer
 *   with its bounds, `count=true` as a boolean, which is how OpenAPI describes a serialised
 *   parameter.
 */
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

type Io = "input" | "output";

interface Def {
  type: string;
  in?: z.ZodType;
  out?: z.ZodType;
  innerType?: z.ZodType;
  defaultValue?: unknown;
  entries?: Record<string, unknown>;
}

const defOf = (schema: z.core.$ZodType) => schema._zod.def as unknown as Def;

/** Converts a schema (or every schema of a registry) for one side of the exchange. */
export function convert(schema: z.ZodType, io: Io): JsonSchema {
  const json = z.toJSONSchema(schema, options(io)) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Every schema of a registry (`id` in its metadata), referring to each other by `uri(id)`. */
export function convertRegistry(
  registry: z.core.$ZodRegistry<{ id?: string }>,
  io: Io,
  uri: (id: string) => string,
): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { ...options(io), uri }) as { schemas: Record<string, JsonSchema> };
  for (const json of Object.values(schemas)) {
    delete json.$schema;
    delete json.$id;
  }
  return schemas;
}

/**
 * What a schema JSON Schema cannot see into accepts (a `z.unknown().transform(...)` that
 * dispatches on the value's type), said once beside the schema's conversion.
 */
const annotations = new Map<z.core.$ZodType, () => JsonSchema>();

export function annotate(schema: z.ZodType, describe: () => JsonSchema): void {
  annotations.set(schema, describe);
}

function options(io: Io): z.core.ToJSONSchemaParams {
  const sideRule = io === "input" ? addOutputConstraints : showTransformedText;
  return {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: (ctx) => {
      const annotation = annotations.get(ctx.zodSchema);
      if (annotation) Object.assign(ctx.jsonSchema, annotation());
      else sideRule(ctx);
      // `.int()` bounds every integer by the safe range: true of any JSON number a client sends
      // or reads, and only noise in the reference (and in its generated examples).
      if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
      if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
    },
  };
}

/**
 * An answer's value made by a transform (an id lowercased) is documented by what it was made
 * from: JSON Schema cannot show the transform, and the service's transforms keep the type.
 */
function showTransformedText(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = defOf(ctx.zodSchema);
  if (def.type !== "pipe" || !def.in || !def.out || !isTransform(def.out)) return;
  Object.assign(ctx.jsonSchema, convert(def.in, "input"));
}

function addOutputConstraints(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = defOf(ctx.zodSchema);
  if (def.type !== "pipe" || !def.in || !def.out || isTransform(def.in) || isTransform(def.out)) return;
  const out = convert(def.out, "input");
  if (Object.keys(out).length > 0) ctx.jsonSchema.allOf = [...(ctx.jsonSchema.allOf ?? []), out];
}

const isTransform = (schema: z.core.$ZodType) => defOf(schema).type === "transform";

/** Whether a schema (through optional/default/nullable/pipe wrappers) ends in a transform. */
function hasTransform(schema: z.ZodType): boolean {
  let found = false;
  z.toJSONSchema(schema, {
    io: "output",
    unrepresentable: (ctx) => {
      if (defOf(ctx.zodSchema).type === "transform") found = true;
      return "any";
    },
  });
  return found;
}

/** `z.enum(["true", "false"]).transform(...)`: a boolean written as text. */
function isTextBoolean(schema: z.ZodType): boolean {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 10; depth++) {
    const def = defOf(current);
    if (def.type === "pipe") {
      const inner = def.in ? defOf(def.in) : undefined;
      if (
        inner?.type === "enum" &&
        Object.keys(inner.entries ?? {})
          .sort()
          .join() === "false,true"
      )
        return true;
      current = def.in;
    } else {
      current = def.innerType;
    }
  }
  return false;
}

/** The schema of one query parameter, as the value a client serialises. */
export function parameterSchema(field: z.ZodType): JsonSchema {
  const output = convert(field, "output");
  if (isTextBoolean(field)) {
    return { type: "boolean", ...("default" in output ? { default: output.default } : {}) };
  }
  // A coerced value whose result JSON Schema can show (an integer): the result; an id or a date
  // the service converts to an object: the text the client sends.
  const schema = hasTransform(field) ? convert(field, "input") : output;
  // zod spells out RFC 3339 as a long pattern beside `format: date-time`; a parameter is read
  // with the format alone (an offset is accepted), so the pattern would only hide it.
  if (schema.format === "date-time") delete schema.pattern;
  return schema;
}

/** Whether a field of an object schema may be left out by the client. */
export function isOptional(field: z.ZodType): boolean {
  return field.safeParse(undefined).success;
}

/**
 * Says outright what a schema already implies, for renderers that read a schema by its `type`
 * (Scalar's reference skips examples of one without): a union gets the `type` of its branches,
 * and "any value" as `additionalProperties` is written `true`. Nothing accepted changes.
 */
export function withExplicitTypes<T>(document: T, component: (ref: string) => JsonSchema | undefined): T {
  const typeOf = (branch: JsonSchema): string[] | undefined => {
    if (typeof branch.$ref === "string") {
      const target = component(branch.$ref);
      return target ? typeOf(target) : undefined;
    }
    if (typeof branch.type === "string") return [branch.type];
    if (Array.isArray(branch.type)) return branch.type as string[];
    if ("const" in branch)
      return [branch.const === null ? "null" : Number.isInteger(branch.const) ? "integer" : typeof branch.const];
    if (Array.isArray(branch.anyOf)) return union(branch.anyOf as JsonSchema[]);
    return undefined;
  };
  const union = (branches: JsonSchema[]): string[] | undefined => {
    const types = new Set<string>();
    for (const branch of branches) {
      const found = typeOf(branch);
      if (!found) return undefined;
      for (const type of found) types.add(type);
    }
    // `integer` is a kind of `number`.
    if (types.has("number")) types.delete("integer");
    return [...types];
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const schema = node as JsonSchema;
    for (const value of Object.values(schema)) visit(value);
    if (Array.isArray(schema.anyOf) && schema.type === undefined) {
      const types = union(schema.anyOf as JsonSchema[]);
      if (types) schema.type = types.length === 1 ? types[0] : types;
    }
    const extra = schema.additionalProperties;
    if (extra && typeof extra === "object" && Object.keys(extra).length === 0) schema.additionalProperties = true;
  };
  visit(document);
  return document;
}
