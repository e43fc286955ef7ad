/**
 * Collection validators: the `validator`, `validationLevel` and `validationAction` options of
 * `create` and `collMod`, checked on every write that stores a document. A document that fails
 * is refused with MongoDB's `DocumentValidationFailure` (121) and an `errInfo` that says why, in
 * the shape MongoDB 8 writes it (`failingDocumentId`, `details`).
 */
import type { Document } from "bson";
import { Aggregator, Query } from "mingo";
import { Context } from "mingo/core";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { isPlainObject, presentValuesAtPath } from "../storage/keys";
import { jsonSchemaFailure, matchesSchema, parseJsonSchema, typeName } from "./json-schema";
import { customQueryOperators, rewriteTypeOperators } from "./type-operators";

const VALIDATION_LEVELS = ["off", "strict", "moderate"] as const;
const VALIDATION_ACTIONS = ["error", "warn"] as const;

/** Operators MongoDB refuses inside a validator. */
const FORBIDDEN = ["$where", "$text", "$near", "$nearSphere", "$geoNear"];

/** mingo's `jsonSchemaValidator` option, which lets `$jsonSchema` run inside queries too (find, count, $match). */
export const jsonSchemaValidator = (schema: Document) => {
  parseJsonSchema(schema);
  return (doc: Document) => matchesSchema(schema, doc);
};

function enumValue(cmd: Document, command: string, field: string, allowed: readonly string[]): string | undefined {
  const v = cmd[field];
  if (v === undefined) return undefined;
  if (typeof v !== "string")
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field '${command}.${field}' is the wrong type '${typeName(v)}', expected type 'string'`,
    );
  if (!allowed.includes(v))
    throw new MongoCommandError(
      "BadValue",
      `Enumeration value '${v}' for field '${command}.${field}' is not a valid value.`,
    );
  return v;
}

function findForbidden(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = findForbidden(v);
      if (found) return found;
    }
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (FORBIDDEN.includes(k)) return k;
      if (k === "$jsonSchema") continue;
      const found = findForbidden(v);
      if (found) return found;
    }
  }
  return undefined;
}

/** Parses a validator as MongoDB does when it is set, so a bad one is refused then, not at write time. */
function checkValidator(validator: unknown, command: string): void {
  if (!isPlainObject(validator))
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field '${command}.validator' is the wrong type '${typeName(validator)}', expected type 'object'`,
    );
  const forbidden = findForbidden(validator);
  if (forbidden)
    throw new MongoCommandError("QueryFeatureNotAllowed", `${forbidden} is not allowed in collection validators`);
  if ("$jsonSchema" in validator) parseJsonSchema(validator.$jsonSchema);
  try {
    new Query(validator, { jsonSchemaValidator } as Partial<Options>);
  } catch (err) {
    if (err instanceof MongoCommandError) throw err;
    throw new MongoCommandError("BadValue", err instanceof Error ? err.message : String(err));
  }
}

/**
 * The validation options of a `create` or `collMod` command, checked; only those present are
 * returned (an empty validator `{}` clears validation, as in MongoDB).
 */
export function validationOptions(cmd: Document, command: string): Document {
  const out: Document = {};
  if (cmd.validator !== undefined) {
    checkValidator(cmd.validator, command);
    out.validator = cmd.validator;
  }
  const level = enumValue(cmd, command, "validationLevel", VALIDATION_LEVELS);
  if (level) out.validationLevel = level;
  const action = enumValue(cmd, command, "validationAction", VALIDATION_ACTIONS);
  if (action) out.validationAction = action;
  return out;
}

/** The server's own query operators (type-operators.ts), for a write that brings no mingo options. */
const validatorContext = Context.init().addQueryOps(customQueryOperators as never);

/** A validator is a filter like any other: `$type` by BSON type, documents compared in order. */
function matches(validator: Document, doc: Document, options?: Partial<Options>): boolean {
  return new Query(rewriteTypeOperators(validator), {
    context: validatorContext,
    ...options,
    jsonSchemaValidator,
  } as Partial<Options>).test(doc);
}

export interface WriteValidation {
  /** The collection's options (where `validator`, `validationLevel`, `validationAction` live). */
  options: Document;
  /** The document to be stored. */
  doc: Document;
  /** The document it replaces (an update), undefined for an insert or an upsert. */
  before?: Document;
  /** The command's `bypassDocumentValidation`. */
  bypass?: boolean;
  mingo?: Partial<Options>;
}

/** Refuses a document the collection's validator rejects, as MongoDB does for this write. */
export function validateWrite({ options, doc, before, bypass, mingo }: WriteValidation): void {
  const validator = options.validator as Document | undefined;
  if (bypass === true || !validator || Object.keys(validator).length === 0) return;
  const level = options.validationLevel ?? "strict";
  if (level === "off" || options.validationAction === "warn") return;
  if (matches(validator, doc, mingo)) return;
  // "moderate": an update of a document that already broke the rules is let through.
  if (level === "moderate" && before && !matches(validator, before, mingo)) return;
  throw new MongoCommandError("DocumentValidationFailure", "Document failed validation", {
    errInfo: { failingDocumentId: doc._id, details: explain(validator, doc, mingo) },
  });
}

// ---- why a document fails: MongoDB's error details for query-style validators ----

const REASONS: Record<string, [string, string]> = {
  $eq: ["comparison failed", "comparison succeeded"],
  $ne: ["comparison succeeded", "comparison failed"],
  $gt: ["comparison failed", "comparison succeeded"],
  $gte: ["comparison failed", "comparison succeeded"],
  $lt: ["comparison failed", "comparison succeeded"],
  $lte: ["comparison failed", "comparison succeeded"],
  $in: ["no matching value found in array", "matching value found in array"],
  $nin: ["matching value found in array", "no matching value found in array"],
  $exists: ["path does not exist", "path does exist"],
  $type: ["type did not match", "type did match"],
  $regex: ["regular expression did not match", "regular expression did match"],
  $mod: ["$mod did not evaluate to expected remainder", "$mod did evaluate to expected remainder"],
  $size: ["array length was not equal to given size", "array length was equal to given size"],
  $all: ["array did not contain all specified values", "array did contain all specified values"],
  $elemMatch: ["array did not satisfy the child predicate", "array did satisfy the child predicate"],
  $bitsAllSet: ["bitwise operator failed to match", "bitwise operator matched successfully"],
  $bitsAllClear: ["bitwise operator failed to match", "bitwise operator matched successfully"],
  $bitsAnySet: ["bitwise operator failed to match", "bitwise operator matched successfully"],
  $bitsAnyClear: ["bitwise operator failed to match", "bitwise operator matched successfully"],
};

/** The clauses of a filter object, one per field condition or operator, in order. */
function clauses(filter: Document): Document[] {
  const out: Document[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (
      !key.startsWith("$") &&
      isPlainObject(cond) &&
      Object.keys(cond).length > 1 &&
      Object.keys(cond).every((k) => k.startsWith("$") && k !== "$options")
    ) {
      for (const [op, v] of Object.entries(cond))
        out.push({
          [key]: op === "$regex" && "$options" in cond ? { $regex: v, $options: cond.$options } : { [op]: v },
        });
    } else out.push({ [key]: cond });
  }
  return out;
}

function explain(filter: Document, doc: Document, options: Partial<Options> | undefined, inverted = false): Document {
  const parts = clauses(filter);
  if (parts.length !== 1) return logical("$and", parts, doc, options, inverted);
  return explainClause(parts[0], doc, options, inverted);
}

function passes(filter: Document, doc: Document, options?: Partial<Options>): boolean {
  try {
    return matches(filter, doc, options);
  } catch {
    return false;
  }
}

function logical(
  op: string,
  parts: Document[],
  doc: Document,
  options: Partial<Options> | undefined,
  inverted: boolean,
): Document {
  // $nor reports the clauses that matched; the others, those that did not (inverted: the opposite).
  const reportMatching = (op === "$nor") !== inverted;
  const childInverted = op === "$nor" ? !inverted : inverted;
  const listed = parts
    .map((part, index) => ({ part, index }))
    .filter(({ part }) => passes(part, doc, options) === reportMatching)
    .map(({ part, index }) => ({ index, details: explain(part, doc, options, childInverted) }));
  return { operatorName: op, [reportMatching ? "clausesSatisfied" : "clausesNotSatisfied"]: listed };
}

function explainClause(
  clause: Document,
  doc: Document,
  options: Partial<Options> | undefined,
  inverted: boolean,
): Document {
  const [key, cond] = Object.entries(clause)[0];
  if (key === "$and" || key === "$or" || key === "$nor")
    return logical(key, cond as Document[], doc, options, inverted);
  if (key === "$jsonSchema") {
    if (inverted) return { operatorName: "$jsonSchema", reason: "schema matched" };
    return jsonSchemaFailure(cond as Document, doc) ?? { operatorName: "$jsonSchema", reason: "schema did not match" };
  }
  if (key === "$expr") {
    let expressionResult: unknown;
    try {
      const [row] = new Aggregator([{ $project: { _id: 0, r: cond } }], options).run([doc]) as Document[];
      expressionResult = row?.r ?? null;
    } catch {
      return { operatorName: "$expr", specifiedAs: clause, reason: "failed to evaluate aggregation expression" };
    }
    return {
      operatorName: "$expr",
      specifiedAs: clause,
      reason: inverted ? "expression did match" : "expression did not match",
      expressionResult,
    };
  }
  if (key === "$alwaysFalse" || key === "$alwaysTrue") {
    return {
      operatorName: key,
      specifiedAs: clause,
      reason: inverted ? "expression always evaluates to true" : "expression always evaluates to false",
    };
  }
  const isOperator =
    isPlainObject(cond) && Object.keys(cond).length > 0 && Object.keys(cond).every((k) => k.startsWith("$"));
  const op = cond instanceof RegExp ? "$regex" : isOperator ? Object.keys(cond as Document)[0] : "$eq";
  if (op === "$not") {
    return {
      operatorName: "$not",
      details: explainClause(
        {
          [key]:
            (cond as Document).$not instanceof RegExp ? { $regex: (cond as Document).$not } : (cond as Document).$not,
        },
        doc,
        options,
        !inverted,
      ),
    };
  }
  const detail: Document = { operatorName: op, specifiedAs: clause };
  const values =
    op === "$size" || op === "$elemMatch" || op === "$all"
      ? presentValuesAtPath(doc, key).length
        ? [valueAt(doc, key)]
        : []
      : leafValues(doc, key);
  const missing = !pathPresent(doc, key);
  const [normal, opposite] = REASONS[op] ?? ["expression did not match", "expression did match"];
  if (op === "$exists") {
    detail.reason = (cond as Document).$exists ? (inverted ? opposite : normal) : inverted ? normal : opposite;
    return detail;
  }
  if (missing) detail.reason = "field was missing";
  else detail.reason = inverted ? opposite : normal;
  if (!missing) {
    if (values.length === 1) detail.consideredValue = values[0];
    else detail.consideredValues = values;
    if (op === "$type") {
      const types = [...new Set(values.map(typeName))].sort();
      if (types.length === 1) detail.consideredType = types[0];
      else if (types.length > 1) detail.consideredTypes = types;
    }
  }
  return detail;
}

function pathPresent(doc: Document, path: string): boolean {
  return presentValuesAtPath(doc, path).length > 0 || Array.isArray(valueAt(doc, path));
}

function valueAt(doc: Document, path: string): unknown {
  let cur: unknown = doc;
  for (const part of path.split(".")) {
    if (!isPlainObject(cur) && !Array.isArray(cur)) return undefined;
    cur = Object.hasOwn(cur, part) ? (cur as Record<string, unknown>)[part] : undefined;
  }
  return cur;
}

/** The values a leaf operator considers at a path: an array's elements, not the array. */
function leafValues(doc: Document, path: string): unknown[] {
  return presentValuesAtPath(doc, path);
}
