/**
 * MongoDB's `$jsonSchema` dialect (draft 4 with `bsonType`, without `$ref`, `format`, `default`,
 * `definitions`, `id`, `$schema` and the `integer` type): parsed once to refuse what MongoDB
 * refuses, then evaluated against a document, returning the rules not satisfied in the shape
 * MongoDB 8 writes into a `DocumentValidationFailure`'s `errInfo.details`.
 */
import { EJSON, type Document } from "bson";
import { MongoCommandError } from "../errors";
import { compareValues, isPlainObject } from "../storage/keys";

/** MongoDB's `$type` aliases and the JSON Schema `type` names it accepts. */
const BSON_ALIASES = new Set([
  "double",
  "string",
  "object",
  "array",
  "binData",
  "undefined",
  "objectId",
  "bool",
  "date",
  "null",
  "regex",
  "dbPointer",
  "javascript",
  "symbol",
  "javascriptWithScope",
  "int",
  "timestamp",
  "long",
  "decimal",
  "minKey",
  "maxKey",
  "number",
]);
const JSON_TYPES = new Set(["object", "array", "number", "boolean", "string", "null"]);
const UNSUPPORTED = new Set(["$ref", "$schema", "default", "definitions", "format", "id"]);
const KEYWORDS = new Set([
  "type",
  "bsonType",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "minProperties",
  "maxProperties",
  "dependencies",
  "enum",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "items",
  "additionalItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "title",
  "description",
  "encrypt",
  "encryptMetadata",
]);

function fail(message: string, codeName: "FailedToParse" | "BadValue" | "TypeMismatch" = "FailedToParse"): never {
  throw new MongoCommandError(codeName, message);
}

function isNumber(v: unknown): boolean {
  return (
    typeof v === "number" ||
    ["Int32", "Long", "Double", "Decimal128"].includes(String((v as { _bsontype?: string } | null)?._bsontype))
  );
}

function nonNegativeInteger(schema: Document, keyword: string): void {
  const v = schema[keyword];
  if (v === undefined) return;
  if (!isNumber(v)) fail(`$jsonSchema keyword '${keyword}' must be a number`, "TypeMismatch");
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) fail(`$jsonSchema keyword '${keyword}' must be a non-negative integral number`);
}

function schemaArray(schema: Document, keyword: string): Document[] {
  const v = schema[keyword];
  if (!Array.isArray(v)) fail(`$jsonSchema keyword '${keyword}' must be an array`, "TypeMismatch");
  if (v.length === 0) fail(`$jsonSchema keyword '${keyword}' must be a non-empty array`);
  for (const s of v)
    if (!isPlainObject(s))
      fail(
        `$jsonSchema keyword '${keyword}' must be an array of objects, but found an element of type ${typeName(s)}`,
        "TypeMismatch",
      );
  return v as Document[];
}

function typeList(schema: Document, keyword: "type" | "bsonType"): string[] {
  const raw = schema[keyword];
  const list = Array.isArray(raw) ? raw : [raw];
  if (typeof raw !== "string" && !Array.isArray(raw))
    fail(`$jsonSchema keyword '${keyword}' must be either a string or an array of strings`, "TypeMismatch");
  for (const t of list) {
    if (typeof t !== "string") fail(`$jsonSchema keyword '${keyword}' array elements must be strings`, "TypeMismatch");
    if (t === "integer") fail("$jsonSchema type 'integer' is not currently supported.");
    if (keyword === "type" && !JSON_TYPES.has(t)) fail(`Unknown type name alias: ${t}`, "BadValue");
    if (keyword === "bsonType" && !BSON_ALIASES.has(t)) fail(`Unknown type name alias: ${t}`, "BadValue");
  }
  const duplicate = list.find((t, i) => list.indexOf(t) !== i);
  if (duplicate !== undefined) fail(`$jsonSchema keyword '${keyword}' has duplicate value: ${String(duplicate)}`);
  return list as string[];
}

/** Refuses a schema MongoDB refuses, with its error codes; returns nothing. */
export function parseJsonSchema(schema: unknown): void {
  if (!isPlainObject(schema)) fail("$jsonSchema must be an object", "TypeMismatch");
  for (const keyword of Object.keys(schema)) {
    if (UNSUPPORTED.has(keyword)) fail(`$jsonSchema keyword '${keyword}' is not currently supported`);
    if (!KEYWORDS.has(keyword)) fail(`Unknown $jsonSchema keyword: ${keyword}`);
  }
  if ("type" in schema && "bsonType" in schema) fail("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  if ("type" in schema) typeList(schema, "type");
  if ("bsonType" in schema) typeList(schema, "bsonType");
  for (const k of ["minimum", "maximum", "multipleOf"]) {
    if (k in schema && !isNumber(schema[k])) fail(`$jsonSchema keyword '${k}' must be a number`, "TypeMismatch");
  }
  if ("multipleOf" in schema && Number(schema.multipleOf) <= 0)
    fail("$jsonSchema keyword 'multipleOf' must have a positive value");
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ]) {
    if (flag in schema) {
      if (typeof schema[flag] !== "boolean") fail(`$jsonSchema keyword '${flag}' must be a boolean`, "TypeMismatch");
      if (!(bound in schema)) fail(`$jsonSchema keyword '${bound}' must be a present if ${flag} is present`);
    }
  }
  for (const k of ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"])
    nonNegativeInteger(schema, k);
  if ("pattern" in schema) {
    if (typeof schema.pattern !== "string") fail("$jsonSchema keyword 'pattern' must be a string", "TypeMismatch");
    compilePattern(schema.pattern);
  }
  for (const k of ["title", "description"])
    if (k in schema && typeof schema[k] !== "string")
      fail(`$jsonSchema keyword '${k}' must be of type string`, "TypeMismatch");
  if ("uniqueItems" in schema && typeof schema.uniqueItems !== "boolean")
    fail("$jsonSchema keyword 'uniqueItems' must be a boolean", "TypeMismatch");
  if ("enum" in schema) {
    if (!Array.isArray(schema.enum)) fail("$jsonSchema keyword 'enum' must be an array", "TypeMismatch");
    if (schema.enum.length === 0) fail("$jsonSchema keyword 'enum' cannot be an empty array");
  }
  if ("required" in schema) {
    const r = schema.required;
    if (!Array.isArray(r)) fail("$jsonSchema keyword 'required' must be an array", "TypeMismatch");
    if (r.length === 0) fail("$jsonSchema keyword 'required' cannot be an empty array");
    if (r.some((p) => typeof p !== "string"))
      fail("$jsonSchema keyword 'required' must contain only strings", "TypeMismatch");
    if (new Set(r).size !== r.length) fail("$jsonSchema keyword 'required' array cannot contain duplicate values");
  }
  if ("properties" in schema) {
    if (!isPlainObject(schema.properties)) fail("$jsonSchema keyword 'properties' must be an object", "TypeMismatch");
    for (const sub of Object.values(schema.properties)) parseJsonSchema(sub);
  }
  if ("patternProperties" in schema) {
    if (!isPlainObject(schema.patternProperties))
      fail("$jsonSchema keyword 'patternProperties' must be an object", "TypeMismatch");
    for (const [p, sub] of Object.entries(schema.patternProperties)) {
      compilePattern(p);
      parseJsonSchema(sub);
    }
  }
  for (const k of ["additionalProperties", "additionalItems"]) {
    if (k in schema) {
      if (typeof schema[k] === "boolean") continue;
      if (!isPlainObject(schema[k]))
        fail(`$jsonSchema keyword '${k}' must be either an object or a boolean`, "TypeMismatch");
      parseJsonSchema(schema[k]);
    }
  }
  if ("items" in schema) {
    if (Array.isArray(schema.items)) for (const sub of schema.items) parseJsonSchema(sub);
    else if (isPlainObject(schema.items)) parseJsonSchema(schema.items);
    else fail("$jsonSchema keyword 'items' must be an array or an object", "TypeMismatch");
  }
  for (const k of ["allOf", "anyOf", "oneOf"])
    if (k in schema) for (const sub of schemaArray(schema, k)) parseJsonSchema(sub);
  if ("not" in schema) parseJsonSchema(schema.not);
  if ("dependencies" in schema) {
    if (!isPlainObject(schema.dependencies))
      fail("$jsonSchema keyword 'dependencies' must be an object", "TypeMismatch");
    for (const [prop, dep] of Object.entries(schema.dependencies)) {
      if (Array.isArray(dep)) {
        if (dep.length === 0) fail(`property '${prop}' in $jsonSchema keyword 'dependencies' cannot be an empty array`);
        if (dep.some((d) => typeof d !== "string"))
          fail(`property '${prop}' in $jsonSchema keyword 'dependencies' must be an array of strings`, "TypeMismatch");
      } else if (isPlainObject(dep)) parseJsonSchema(dep);
      else
        fail(
          `property '${prop}' in $jsonSchema keyword 'dependencies' must be either an object or an array`,
          "TypeMismatch",
        );
    }
  }
}

function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch (err) {
      fail(`$jsonSchema keyword 'pattern' is not a valid regular expression: ${(err as Error).message}`, "BadValue");
    }
  }
}

/** MongoDB's type name of a value (`typeName()` in its sources). */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  // The driver sends an integral JavaScript number that fits 32 bits as an int32, any other as a double.
  if (typeof v === "number") return Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? "int" : "double";
  if (typeof v === "bigint") return "long";
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "date";
  if (v instanceof RegExp) return "regex";
  if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) return "binData";
  switch ((v as { _bsontype?: string })._bsontype) {
    case "Int32":
      return "int";
    case "Double":
      return "double";
    case "Long":
      return "long";
    case "Decimal128":
      return "decimal";
    case "ObjectId":
    case "ObjectID":
      return "objectId";
    case "Binary":
      return "binData";
    case "Timestamp":
      return "timestamp";
    case "BSONRegExp":
      return "regex";
    case "MinKey":
      return "minKey";
    case "MaxKey":
      return "maxKey";
    case "BSONSymbol":
      return "symbol";
    case "Code":
      return (v as { scope?: unknown }).scope ? "javascriptWithScope" : "javascript";
    case "DBRef":
      return "object";
  }
  return "object";
}

const NUMERIC = new Set(["int", "long", "double", "decimal"]);

function typeMatches(v: unknown, alias: string, jsonType: boolean): boolean {
  const t = typeName(v);
  if (alias === "number") return NUMERIC.has(t);
  if (jsonType && alias === "boolean") return t === "bool";
  return t === alias;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (isNumber(a) && isNumber(b)) return Number(a) === Number(b);
  return compareValues(a, b) === 0 && EJSON.stringify({ v: a } as Document) === EJSON.stringify({ v: b } as Document);
}

function annotations(schema: Document): Document {
  const out: Document = {};
  if (typeof schema.title === "string") out.title = schema.title;
  if (typeof schema.description === "string") out.description = schema.description;
  return out;
}

function specified(schema: Document, ...keys: string[]): Document {
  const out: Document = {};
  for (const k of keys) if (k in schema) out[k] = schema[k];
  return out;
}

/** True when the value satisfies the schema. */
export function matchesSchema(schema: Document, value: unknown): boolean {
  return schemaErrors(schema, value, true).length === 0 && rootTypeAllowsObject(schema);
}

/**
 * The rules of `schema` that `value` does not satisfy, each as MongoDB reports it; empty when
 * the value satisfies the schema.
 */
function schemaErrors(schema: Document, value: unknown, root = false): Document[] {
  // MongoDB's order: string, number, array, object and logical keywords, enum, then the type
  // (which the top level does not check: a stored document is always an object).
  const errors: Document[] = [];
  const t = typeName(value);
  if (t === "string") {
    const length = [...(value as string)].length;
    if ("pattern" in schema && !compilePattern(String(schema.pattern)).test(value as string)) {
      errors.push({
        operatorName: "pattern",
        specifiedAs: { pattern: schema.pattern },
        reason: "regular expression did not match",
        consideredValue: value,
      });
    }
    if ("maxLength" in schema && length > Number(schema.maxLength)) {
      errors.push({
        operatorName: "maxLength",
        specifiedAs: { maxLength: schema.maxLength },
        reason: "specified string length was not satisfied",
        consideredValue: value,
      });
    }
    if ("minLength" in schema && length < Number(schema.minLength)) {
      errors.push({
        operatorName: "minLength",
        specifiedAs: { minLength: schema.minLength },
        reason: "specified string length was not satisfied",
        consideredValue: value,
      });
    }
  }
  if (NUMERIC.has(t)) {
    const n = Number(value);
    if ("multipleOf" in schema && !Number.isInteger(n / Number(schema.multipleOf))) {
      errors.push({
        operatorName: "multipleOf",
        specifiedAs: { multipleOf: schema.multipleOf },
        reason: "considered value is not a multiple of the specified value",
        consideredValue: value,
      });
    }
    if ("maximum" in schema) {
      const max = Number(schema.maximum);
      if (schema.exclusiveMaximum === true ? !(n < max) : !(n <= max)) {
        errors.push({
          operatorName: "maximum",
          specifiedAs: specified(schema, "maximum", "exclusiveMaximum"),
          reason: "comparison failed",
          consideredValue: value,
        });
      }
    }
    if ("minimum" in schema) {
      const min = Number(schema.minimum);
      if (schema.exclusiveMinimum === true ? !(n > min) : !(n >= min)) {
        errors.push({
          operatorName: "minimum",
          specifiedAs: specified(schema, "minimum", "exclusiveMinimum"),
          reason: "comparison failed",
          consideredValue: value,
        });
      }
    }
  }
  if (Array.isArray(value)) errors.push(...arrayErrors(schema, value));
  if (t === "object" && isPlainObject(value)) errors.push(...objectErrors(schema, value));
  errors.push(...logicalErrors(schema, value));
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameValue(e, value))) {
    errors.push({
      operatorName: "enum",
      specifiedAs: { enum: schema.enum },
      reason: "value was not found in enum",
      consideredValue: value,
    });
  }
  for (const keyword of root ? [] : (["bsonType", "type"] as const)) {
    if (!(keyword in schema)) continue;
    const list = Array.isArray(schema[keyword]) ? (schema[keyword] as string[]) : [schema[keyword] as string];
    if (!list.some((alias) => typeMatches(value, alias, keyword === "type"))) {
      errors.push({
        operatorName: keyword,
        specifiedAs: { [keyword]: schema[keyword] },
        reason: "type did not match",
        consideredValue: value,
        consideredType: t,
      });
    }
  }
  return errors;
}

function objectErrors(schema: Document, obj: Document): Document[] {
  const errors: Document[] = [];
  const keys = Object.keys(obj);
  if (isPlainObject(schema.properties)) {
    const failing: Document[] = [];
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (!(name in obj) || obj[name] === undefined) continue;
      const details = schemaErrors(sub as Document, obj[name]);
      if (details.length) failing.push({ propertyName: name, ...annotations(sub as Document), details });
    }
    if (failing.length) errors.push({ operatorName: "properties", propertiesNotSatisfied: failing });
  }
  if ("additionalProperties" in schema || "patternProperties" in schema)
    errors.push(...allowedPropertiesErrors(schema, obj));
  if (Array.isArray(schema.required)) {
    const missing = (schema.required as string[]).filter((p) => !(p in obj) || obj[p] === undefined);
    if (missing.length)
      errors.push({ operatorName: "required", specifiedAs: { required: schema.required }, missingProperties: missing });
  }
  for (const k of ["minProperties", "maxProperties"]) {
    if (!(k in schema)) continue;
    const bad = k === "minProperties" ? keys.length < Number(schema[k]) : keys.length > Number(schema[k]);
    if (bad)
      errors.push({
        operatorName: k,
        specifiedAs: { [k]: schema[k] },
        reason: "specified number of properties was not satisfied",
        numberOfProperties: keys.length,
      });
  }
  if (isPlainObject(schema.dependencies)) {
    const failing: Document[] = [];
    for (const [prop, dep] of Object.entries(schema.dependencies)) {
      if (!(prop in obj)) continue;
      if (Array.isArray(dep)) {
        const missing = (dep as string[]).filter((p) => !(p in obj));
        if (missing.length) failing.push({ conditionalProperty: prop, missingProperties: missing });
      } else {
        const details = schemaErrors(dep as Document, obj);
        if (details.length) failing.push({ conditionalProperty: prop, details });
      }
    }
    if (failing.length) errors.push({ operatorName: "dependencies", failingDependencies: failing });
  }
  return errors;
}

function allowedPropertiesErrors(schema: Document, obj: Document): Document[] {
  const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  const patterns = isPlainObject(schema.patternProperties)
    ? Object.entries(schema.patternProperties).map(([p, sub]) => ({
        source: p,
        re: compilePattern(p),
        sub: sub as Document,
      }))
    : [];
  const errors: Document[] = [];
  const additional = Object.keys(obj).filter((k) => !properties.includes(k) && !patterns.some((p) => p.re.test(k)));
  const extra = schema.additionalProperties;
  if (extra === false && additional.length) {
    errors.push({
      operatorName: "additionalProperties",
      specifiedAs: { additionalProperties: false },
      additionalProperties: additional,
    });
  } else if (isPlainObject(extra)) {
    for (const name of additional) {
      const details = schemaErrors(extra, obj[name]);
      if (details.length) {
        errors.push({
          operatorName: "additionalProperties",
          ...annotations(extra),
          reason: "at least one additional property did not match the subschema",
          failingProperty: name,
          details,
        });
        break;
      }
    }
  }
  const patternFailures: Document[] = [];
  for (const { source, re, sub } of patterns) {
    for (const name of Object.keys(obj)) {
      if (!re.test(name)) continue;
      const details = schemaErrors(sub, obj[name]);
      if (details.length) {
        patternFailures.push({ propertyName: name, ...annotations(sub), regexMatched: source, details });
        break;
      }
    }
  }
  if (patternFailures.length) errors.push({ operatorName: "patternProperties", details: patternFailures });
  return errors;
}

function arrayErrors(schema: Document, arr: unknown[]): Document[] {
  const errors: Document[] = [];
  for (const k of ["minItems", "maxItems"]) {
    if (!(k in schema)) continue;
    const bad = k === "minItems" ? arr.length < Number(schema[k]) : arr.length > Number(schema[k]);
    if (bad)
      errors.push({
        operatorName: k,
        specifiedAs: { [k]: schema[k] },
        reason: "array did not match specified length",
        consideredValue: arr,
        numberOfItems: arr.length,
      });
  }
  if (schema.uniqueItems === true) {
    const duplicate = arr.find((v, i) => arr.slice(0, i).some((w) => sameValue(v, w)));
    if (duplicate !== undefined)
      errors.push({
        operatorName: "uniqueItems",
        specifiedAs: { uniqueItems: true },
        reason: "found a duplicate item",
        consideredValue: arr,
        duplicatedValue: duplicate,
      });
  }
  if (isPlainObject(schema.items)) {
    const sub = schema.items;
    for (let i = 0; i < arr.length; i++) {
      const details = schemaErrors(sub, arr[i]);
      if (details.length) {
        errors.push({
          operatorName: "items",
          ...annotations(sub),
          reason: "At least one item did not match the sub-schema",
          itemIndex: i,
          details,
        });
        break;
      }
    }
  } else if (Array.isArray(schema.items)) {
    const subs = schema.items as Document[];
    const failing: Document[] = [];
    for (let i = 0; i < Math.min(subs.length, arr.length); i++) {
      const details = schemaErrors(subs[i], arr[i]);
      if (details.length) failing.push({ index: i, itemIndex: i, ...annotations(subs[i]), details });
    }
    if (failing.length) errors.push({ operatorName: "items", details: failing });
    const rest = arr.slice(subs.length);
    if (schema.additionalItems === false && rest.length) {
      errors.push({
        operatorName: "additionalItems",
        specifiedAs: { additionalItems: false },
        reason: "found additional items",
        additionalItems: rest,
      });
    } else if (isPlainObject(schema.additionalItems)) {
      for (let i = 0; i < rest.length; i++) {
        const details = schemaErrors(schema.additionalItems, rest[i]);
        if (details.length) {
          errors.push({
            operatorName: "additionalItems",
            ...annotations(schema.additionalItems),
            reason: "At least one additional item did not match the sub-schema",
            itemIndex: subs.length + i,
            details,
          });
          break;
        }
      }
    }
  }
  return errors;
}

function logicalErrors(schema: Document, value: unknown): Document[] {
  const errors: Document[] = [];
  const each = (k: string) =>
    (schema[k] as Document[]).map((sub, index) => ({ index, sub, details: schemaErrors(sub, value) }));
  if (Array.isArray(schema.allOf)) {
    const failing = each("allOf").filter((r) => r.details.length);
    if (failing.length)
      errors.push({
        operatorName: "allOf",
        schemasNotSatisfied: failing.map((r) => ({ index: r.index, ...annotations(r.sub), details: r.details })),
      });
  }
  if (Array.isArray(schema.anyOf)) {
    const results = each("anyOf");
    if (results.every((r) => r.details.length))
      errors.push({
        operatorName: "anyOf",
        schemasNotSatisfied: results.map((r) => ({ index: r.index, ...annotations(r.sub), details: r.details })),
      });
  }
  if (Array.isArray(schema.oneOf)) {
    const results = each("oneOf");
    const matching = results.filter((r) => r.details.length === 0).map((r) => r.index);
    if (matching.length === 0)
      errors.push({
        operatorName: "oneOf",
        schemasNotSatisfied: results.map((r) => ({ index: r.index, ...annotations(r.sub), details: r.details })),
      });
    else if (matching.length > 1)
      errors.push({
        operatorName: "oneOf",
        reason: "more than one subschema matched",
        matchingSchemaIndexes: matching,
      });
  }
  if (isPlainObject(schema.not) && schemaErrors(schema.not, value).length === 0)
    errors.push({ operatorName: "not", reason: "child expression matched" });
  return errors;
}

/** A top-level type that excludes "object" matches no document at all. */
function rootTypeAllowsObject(schema: Document): boolean {
  for (const keyword of ["bsonType", "type"]) {
    if (!(keyword in schema)) continue;
    const list = Array.isArray(schema[keyword]) ? (schema[keyword] as string[]) : [schema[keyword] as string];
    if (!list.includes("object")) return false;
  }
  return true;
}

/** The `details` of a document failing a top-level `$jsonSchema`, or undefined when it passes. */
export function jsonSchemaFailure(schema: Document, doc: Document): Document | undefined {
  const rules = schemaErrors(schema, doc, true);
  if (!rootTypeAllowsObject(schema))
    rules.unshift({ operatorName: "$alwaysFalse", reason: "expression always evaluates to false" });
  if (rules.length === 0) return undefined;
  return { operatorName: "$jsonSchema", ...annotations(schema), schemaRulesNotSatisfied: rules };
}
