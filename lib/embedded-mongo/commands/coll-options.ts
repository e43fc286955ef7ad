/**
 * Collection options of `create` and what `collMod` may change: validators, hidden indexes and
 * TTL, views. Capped collections keep insertion order and drop their oldest documents (store.ts);
 * time-series collections are validated as MongoDB validates them (timeseries.ts).
 */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { validationOptions } from "../query/validation";
import { ID_INDEX, type IndexSpec } from "../storage/index-spec";
import { ns } from "../storage/store";
import { createExpireAfterSeconds, createTimeseriesOptions } from "../storage/timeseries";
import { collectionName, existing, type Handler } from "./context";

const UNSUPPORTED_HINT = "is not supported by the embedded database: set MONGODB_URI to use a MongoDB server";

/** Refuses what MongoDB refuses, and what this database cannot do, in a `create` command's options. */
export function checkCollectionOptions(options: Document, namespace: string): void {
  const capped = options.capped === true || (typeof options.capped === "number" && options.capped !== 0);
  if (options.timeseries !== undefined) {
    createTimeseriesOptions(namespace, options);
    if (options.capped === false || options.capped === 0) delete options.capped;
  }
  if (capped && !options.size)
    throw new MongoCommandError("InvalidOptions", "the 'size' field is required when 'capped' is true");
  if (!capped && (options.size || options.max)) {
    throw new MongoCommandError(
      "InvalidOptions",
      "the 'capped' field needs to be true when either the 'size' or 'max' fields are present",
    );
  }
  if (capped) {
    for (const field of ["size", "max"]) {
      const v = options[field];
      if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v)))
        throw new MongoCommandError(
          "TypeMismatch",
          `BSON field 'create.${field}' is the wrong type, expected a number`,
        );
    }
    if (options.size < 1)
      throw new MongoCommandError(
        "Location51024",
        `BSON field 'size' value must be >= 1, actual value '${String(options.size)}'`,
      );
    options.capped = true;
  }
  if (options.clusteredIndex === undefined) createExpireAfterSeconds(options);
  if (options.clusteredIndex !== undefined)
    throw new MongoCommandError(
      "InvalidOptions",
      `Clustered collections (the 'clusteredIndex' option) ${UNSUPPORTED_HINT}`,
    );
  Object.assign(options, validationOptions(options, "create"));
}

/** Fields every command may carry that say nothing about the collection. */
const GENERIC = new Set([
  "collMod",
  "$db",
  "lsid",
  "$clusterTime",
  "writeConcern",
  "comment",
  "txnNumber",
  "$readPreference",
  "apiVersion",
  "apiStrict",
  "apiDeprecationErrors",
  "maxTimeMS",
]);
const UNSUPPORTED = new Set([
  "timeseries",
  "cappedSize",
  "cappedMax",
  "changeStreamPreAndPostImages",
  "recordPreImages",
  "expireAfterSeconds",
  "clusteredIndex",
]);

function findIndex(indexes: IndexSpec[], target: Document): IndexSpec {
  const byName = typeof target.name === "string";
  const byKey = target.keyPattern !== undefined && typeof target.keyPattern === "object";
  if (byName === byKey)
    throw new MongoCommandError("InvalidOptions", "must specify either index name or key pattern for collMod");
  const found = byName
    ? indexes.find((i) => i.name === target.name)
    : indexes.find((i) => JSON.stringify(i.key) === JSON.stringify(target.keyPattern));
  if (!found) {
    throw new MongoCommandError(
      "IndexNotFound",
      byName
        ? `cannot find index ${String(target.name)} for ns`
        : `cannot find index ${JSON.stringify(target.keyPattern)} for ns`,
    );
  }
  return found;
}

/** `collMod`: validator, validationLevel, validationAction, `index: {hidden, expireAfterSeconds}`, a view's pipeline. */
export const collMod: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "collMod");
  const meta = existing(ctx, name);
  if (!meta) throw new MongoCommandError("NamespaceNotFound", `ns does not exist: ${ns(ctx.db, name)}`);
  for (const field of Object.keys(cmd)) {
    if (
      GENERIC.has(field) ||
      ["validator", "validationLevel", "validationAction", "index", "viewOn", "pipeline", "dryRun"].includes(field)
    )
      continue;
    if (UNSUPPORTED.has(field)) throw new MongoCommandError("InvalidOptions", `collMod '${field}' ${UNSUPPORTED_HINT}`);
    throw new MongoCommandError("Location40415", `BSON field 'collMod.${field}' is an unknown field.`);
  }
  const isView = Boolean(meta.options.viewOn);
  const changes = validationOptions(cmd, "collMod");
  if (isView && (Object.keys(changes).length || cmd.index !== undefined)) {
    throw new MongoCommandError(
      "InvalidOptions",
      `option not supported on a view: ${Object.keys(changes)[0] ?? "index"}`,
    );
  }
  if (!isView && (cmd.viewOn !== undefined || cmd.pipeline !== undefined)) {
    throw new MongoCommandError(
      "InvalidOptions",
      `option not supported on a collection: ${cmd.viewOn !== undefined ? "viewOn" : "pipeline"}`,
    );
  }
  const reply: Document = {};
  let indexChange: { index: IndexSpec; hidden?: boolean; expireAfterSeconds?: number } | undefined;
  if (cmd.index !== undefined) {
    const target = cmd.index as Document;
    if (target === null || typeof target !== "object" || Array.isArray(target))
      throw new MongoCommandError(
        "TypeMismatch",
        "BSON field 'collMod.index' is the wrong type, expected type 'object'",
      );
    for (const field of Object.keys(target)) {
      if (!["name", "keyPattern", "hidden", "expireAfterSeconds", "prepareUnique", "unique"].includes(field))
        throw new MongoCommandError("Location40415", `BSON field 'collMod.index.${field}' is an unknown field.`);
      if (field === "prepareUnique" || field === "unique")
        throw new MongoCommandError("InvalidOptions", `collMod 'index.${field}' ${UNSUPPORTED_HINT}`);
    }
    const index = findIndex(meta.indexes, target);
    if (target.hidden === undefined && target.expireAfterSeconds === undefined) {
      throw new MongoCommandError("InvalidOptions", "no expireAfterSeconds, hidden, prepareUnique or unique field");
    }
    indexChange = { index };
    if (target.hidden !== undefined) {
      if (typeof target.hidden !== "boolean")
        throw new MongoCommandError(
          "TypeMismatch",
          "BSON field 'collMod.index.hidden' is the wrong type, expected type 'bool'",
        );
      if (index.name === ID_INDEX.name) throw new MongoCommandError("BadValue", "can't hide _id index");
      indexChange.hidden = target.hidden;
      reply.hidden_old = Boolean(index.hidden);
      reply.hidden_new = target.hidden;
    }
    if (target.expireAfterSeconds !== undefined) {
      const seconds = Number(target.expireAfterSeconds);
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new MongoCommandError("InvalidOptions", "expireAfterSeconds must be a non-negative number");
      if (index.expireAfterSeconds === undefined)
        throw new MongoCommandError("InvalidOptions", "no expireAfterSeconds field to update");
      reply.expireAfterSeconds_old = index.expireAfterSeconds;
      reply.expireAfterSeconds_new = seconds;
      indexChange.expireAfterSeconds = seconds;
    }
  }
  if (cmd.dryRun === true) return { ...reply, ok: 1 };
  await ctx.store.write(() => {
    const options: Document = { ...meta.options, ...changes };
    if (changes.validator !== undefined && Object.keys(changes.validator as Document).length === 0)
      delete options.validator;
    if (isView) {
      if (typeof cmd.viewOn === "string") options.viewOn = cmd.viewOn;
      if (Array.isArray(cmd.pipeline)) options.pipeline = cmd.pipeline;
    }
    const indexes = meta.indexes.map((i) => {
      if (i !== indexChange?.index) return i;
      const next: IndexSpec = { ...i };
      if (indexChange.hidden === true) next.hidden = true;
      if (indexChange.hidden === false) delete next.hidden;
      if (indexChange.expireAfterSeconds !== undefined) next.expireAfterSeconds = indexChange.expireAfterSeconds;
      return next;
    });
    ctx.store.updateMeta(meta, options, indexes);
  });
  return { ...reply, ok: 1 };
};
