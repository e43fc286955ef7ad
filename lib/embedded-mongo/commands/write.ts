import { ObjectId, type Document } from "bson";
import { MongoCommandError, endsCommand, errorReply } from "../errors";
import { collatedOptions } from "../query/collated-query";
import { operationCollation } from "../query/collation";
import { findDocuments, mingoOptions, projectDocuments } from "../query/query";
import { applyUpdate, buildUpsert, type UpdateSpec } from "../query/update";
import { validateWrite } from "../query/validation";
import { idFirst } from "../storage/bson-values";
import { isPlainObject } from "../storage/keys";
import { checkDocumentSize, type WriteKind } from "../storage/limits";
import type { CollectionMeta } from "../storage/store";
import { checkMeasurement, checkTimeseriesUpdate, refuseInTransaction, timeseriesOf } from "../storage/timeseries";
import { WaitForTransaction } from "../txn/conflicts";
import { assertWritable, collectionName, optionalDocument, type CommandContext, type Handler } from "./context";

/** A write error of one statement of a batch, in MongoDB's `writeErrors` shape. */
function writeError(index: number, err: unknown): Document {
  if (err instanceof MongoCommandError) return err.toWriteError(index);
  const reply = errorReply(err);
  return { index, code: reply.code, errmsg: reply.errmsg };
}

/** MongoDB stores `_id` as the first field, generating one when the document has none. */
function withIdFirst(doc: Document): Document {
  if (Object.keys(doc)[0] === "_id") return doc;
  return idFirst(doc, doc._id === undefined ? new ObjectId() : doc._id);
}

/**
 * Runs the statements of a batch one by one; a failing statement becomes a write error and, in
 * an ordered batch, stops the ones after it (those before it stay done, as in MongoDB).
 */
function eachStatement<T>(statements: T[], ordered: boolean, run: (statement: T, index: number) => void): Document[] {
  const writeErrors: Document[] = [];
  for (let i = 0; i < statements.length; i++) {
    try {
      run(statements[i], i);
    } catch (err) {
      if (endsCommand(err) || err instanceof WaitForTransaction) throw err;
      writeErrors.push(writeError(i, err));
      if (ordered) break;
    }
  }
  return writeErrors;
}

function checkId(doc: Document): void {
  const id = doc._id;
  if (Array.isArray(id)) throw new MongoCommandError("InvalidIdField", "can't use an array for _id");
  if (id instanceof RegExp) throw new MongoCommandError("InvalidIdField", "can't use a regex for _id");
  // Unlike other fields (allowed since MongoDB 5.0), an `_id` document may hold no `$`-prefixed
  // field at any depth: MongoDB refuses it on insert, upsert and replacement with this message.
  const dollar = isPlainObject(id) ? dollarPrefixedField(id) : undefined;
  if (dollar !== undefined)
    throw new MongoCommandError(
      "DollarPrefixedFieldName",
      `_id fields may not contain '$'-prefixed fields: ${dollar} is not valid for storage.`,
    );
}

/** The first `$`-prefixed field name inside a document or array, as MongoDB's storage check finds it. */
function dollarPrefixedField(value: Document | unknown[]): string | undefined {
  for (const [name, inner] of Object.entries(value)) {
    if (!Array.isArray(value) && name.startsWith("$")) return name;
    if (Array.isArray(inner) || isPlainObject(inner)) {
      const found = dollarPrefixedField(inner);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** What every stored document must pass: the 16 MB limit, then the collection's validator. */
function checkWrite(meta: CollectionMeta, doc: Document, kind: WriteKind, cmd: Document, before?: Document): void {
  checkDocumentSize(doc, kind);
  validateWrite({ options: meta.options, doc, before, bypass: cmd.bypassDocumentValidation === true });
}

const insert: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "insert");
  assertWritable(ctx, name);
  const documents = cmd.documents;
  if (!Array.isArray(documents))
    throw new MongoCommandError("TypeMismatch", "BSON field 'insert.documents' is missing or not an array");
  const ordered = cmd.ordered !== false;
  refuseInTransaction(timeseriesOf(ctx.store.collection(ctx.db, name)), cmd, "insert into");
  return ctx.store.write(() => {
    const { meta } = ctx.store.ensureCollection(ctx.db, name);
    const timeseries = timeseriesOf(meta);
    let n = 0;
    const writeErrors = eachStatement(documents as Document[], ordered, (raw) => {
      const doc = withIdFirst(raw);
      checkId(doc);
      if (timeseries) checkMeasurement(timeseries, doc);
      checkWrite(meta, doc, "insert", cmd);
      ctx.store.insert(meta, doc);
      n += 1;
    });
    return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
  });
};

interface UpdateStatement {
  q: Document;
  u: UpdateSpec;
  multi?: boolean;
  upsert?: boolean;
  arrayFilters?: Document[];
  hint?: unknown;
  sort?: Document;
  collation?: Document;
}

/** A whole new document rather than update operators or a pipeline (change streams say `replace`). */
function replacementStyle(u: UpdateSpec): boolean {
  return !Array.isArray(u) && !Object.keys(u).some((k) => k.startsWith("$"));
}

function validateUpdate(u: unknown): asserts u is UpdateSpec {
  if (!Array.isArray(u) && !isPlainObject(u))
    throw new MongoCommandError("FailedToParse", "Update argument must be either an object or an array");
}

const update: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "update");
  assertWritable(ctx, name);
  const updates = cmd.updates;
  if (!Array.isArray(updates))
    throw new MongoCommandError("TypeMismatch", "BSON field 'update.updates' is missing or not an array");
  const ordered = cmd.ordered !== false;
  refuseInTransaction(timeseriesOf(ctx.store.collection(ctx.db, name)), cmd, "update");
  const options = mingoOptions(ctx.store, ctx.db, optionalDocument(cmd, "let"));
  return ctx.store.write(() => {
    let n = 0;
    let nModified = 0;
    const upserted: Document[] = [];
    const writeErrors = eachStatement(updates as UpdateStatement[], ordered, (st, i) => {
      validateUpdate(st.u);
      const q = st.q ?? {};
      const meta = ctx.store.collection(ctx.db, name);
      const timeseries = timeseriesOf(meta);
      if (timeseries) checkTimeseriesUpdate(timeseries, st);
      if (st.multi && !Array.isArray(st.u) && !Object.keys(st.u).some((k) => k.startsWith("$"))) {
        throw new MongoCommandError("FailedToParse", "multi update is not supported for replacement-style update");
      }
      const collated = collatedOptions(options, operationCollation(st.collation, meta));
      const matched = findDocuments(
        ctx.store,
        meta,
        { filter: q, limit: st.multi ? 0 : 1, hint: st.hint, sort: st.sort },
        collated,
      );
      if (matched.length === 0 && st.upsert) {
        const doc = buildUpsert(q, st.u, { arrayFilters: st.arrayFilters, mingo: collated });
        checkId(doc);
        const target = ctx.store.ensureCollection(ctx.db, name).meta;
        checkWrite(target, doc, "upsert", cmd);
        ctx.store.insert(target, doc);
        upserted.push({ index: i, _id: doc._id });
        n += 1;
        return;
      }
      for (const doc of matched) {
        const result = applyUpdate(doc, st.u, { arrayFilters: st.arrayFilters, query: q, mingo: collated });
        n += 1;
        if (result.modified) {
          checkWrite(meta as CollectionMeta, result.doc, "update", cmd, doc);
          ctx.store.replace(meta as CollectionMeta, doc, result.doc, replacementStyle(st.u) ? "replace" : "update");
          nModified += 1;
        }
      }
    });
    const reply: Document = { n, nModified, ok: 1 };
    if (upserted.length) reply.upserted = upserted;
    if (writeErrors.length) reply.writeErrors = writeErrors;
    return reply;
  });
};

const deleteCommand: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "delete");
  assertWritable(ctx, name);
  const deletes = cmd.deletes;
  if (!Array.isArray(deletes))
    throw new MongoCommandError("TypeMismatch", "BSON field 'delete.deletes' is missing or not an array");
  const ordered = cmd.ordered !== false;
  refuseInTransaction(timeseriesOf(ctx.store.collection(ctx.db, name)), cmd, "delete from");
  const options = mingoOptions(ctx.store, ctx.db, optionalDocument(cmd, "let"));
  return ctx.store.write(() => {
    let n = 0;
    const writeErrors = eachStatement(
      deletes as Array<{ q: Document; limit: number; hint?: unknown; collation?: Document }>,
      ordered,
      (st) => {
        const meta = ctx.store.collection(ctx.db, name);
        const collated = collatedOptions(options, operationCollation(st.collation, meta));
        const matched = findDocuments(
          ctx.store,
          meta,
          { filter: st.q ?? {}, limit: Number(st.limit) === 1 ? 1 : 0, hint: st.hint },
          collated,
        );
        for (const doc of matched) ctx.store.remove(meta as CollectionMeta, doc);
        n += matched.length;
      },
    );
    return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
  });
};

const findAndModify: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "findAndModify" in cmd ? "findAndModify" : "findandmodify");
  assertWritable(ctx, name);
  const query = optionalDocument(cmd, "query") ?? {};
  const sort = optionalDocument(cmd, "sort");
  const fields = optionalDocument(cmd, "fields");
  const remove = cmd.remove === true;
  const u = cmd.update as UpdateSpec | undefined;
  if (remove && u !== undefined)
    throw new MongoCommandError("FailedToParse", "Cannot specify both an update and remove=true");
  if (!remove && u === undefined)
    throw new MongoCommandError("FailedToParse", "Either an update or remove=true must be specified");
  if (remove && cmd.upsert === true)
    throw new MongoCommandError("FailedToParse", "Cannot specify both upsert=true and remove=true");
  if (u !== undefined) validateUpdate(u);
  const timeseries = timeseriesOf(ctx.store.collection(ctx.db, name));
  refuseInTransaction(timeseries, cmd, "findAndModify on");
  // findAndModify changes one document: an update of it is a non-multi update, which MongoDB 8
  // refuses on a time-series collection; a removal is a delete, which it allows.
  if (timeseries && !remove)
    checkTimeseriesUpdate(timeseries, { q: query, u, multi: false, upsert: cmd.upsert === true });
  const options = collatedOptions(
    mingoOptions(ctx.store, ctx.db, optionalDocument(cmd, "let")),
    operationCollation(cmd.collation, ctx.store.collection(ctx.db, name)),
  );
  const arrayFilters = cmd.arrayFilters as Document[] | undefined;
  const project = (doc: Document | null) => (doc && fields ? projectDocuments([doc], fields, {}, options)[0] : doc);

  return ctx.store.write(() => {
    const meta = ctx.store.collection(ctx.db, name);
    const [doc] = findDocuments(ctx.store, meta, { filter: query, sort, limit: 1, hint: cmd.hint }, options);
    if (remove) {
      if (doc) ctx.store.remove(meta as CollectionMeta, doc);
      return { lastErrorObject: { n: doc ? 1 : 0 }, value: project(doc ?? null), ok: 1 };
    }
    if (!doc) {
      if (cmd.upsert !== true) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
      const created = buildUpsert(query, u as UpdateSpec, { arrayFilters, mingo: options });
      checkId(created);
      const target = ctx.store.ensureCollection(ctx.db, name).meta;
      checkWrite(target, created, "upsert", cmd);
      ctx.store.insert(target, created);
      return {
        lastErrorObject: { n: 1, updatedExisting: false, upserted: created._id },
        value: project(cmd.new === true ? created : null),
        ok: 1,
      };
    }
    const result = applyUpdate(doc, u as UpdateSpec, { arrayFilters, query, mingo: options });
    if (result.modified) {
      checkWrite(meta as CollectionMeta, result.doc, "update", cmd, doc);
      ctx.store.replace(
        meta as CollectionMeta,
        doc,
        result.doc,
        replacementStyle(u as UpdateSpec) ? "replace" : "update",
      );
    }
    return {
      lastErrorObject: { n: 1, updatedExisting: true },
      value: project(cmd.new === true ? result.doc : doc),
      ok: 1,
    };
  });
};

/** `$out` replaces the target collection with the results; `$merge` upserts them by `_id`. */
function outTarget(ctx: CommandContext, stage: Document): { db: string; coll: string } {
  const spec = "$out" in stage ? stage.$out : ((stage.$merge as Document).into ?? stage.$merge);
  if (typeof spec === "string") return { db: ctx.db, coll: spec };
  return { db: typeof spec.db === "string" ? spec.db : ctx.db, coll: String(spec.coll) };
}

export async function writeOutStage(
  ctx: CommandContext,
  stage: Document,
  results: Document[],
  cmd: Document = {},
): Promise<void> {
  const { db, coll } = outTarget(ctx, stage);
  await ctx.store.write(() => {
    let meta = ctx.store.collection(db, coll);
    if ("$out" in stage && meta) {
      const indexes = meta.indexes.filter((i) => i.name !== "_id_");
      ctx.store.dropCollection(meta);
      meta = ctx.store.ensureCollection(db, coll).meta;
      for (const index of indexes) ctx.store.createIndex(meta, { ...index, multikeyFields: [] });
    }
    const { meta: out } = ctx.store.ensureCollection(db, coll);
    for (const doc of results) {
      const withId = withIdFirst(doc);
      const current = ctx.store.get(out, withId._id);
      const next = current && "$merge" in stage ? { ...current, ...withId } : withId;
      checkWrite(out, next, current ? "update" : "insert", cmd, current);
      if (current) ctx.store.replace(out, current, next);
      else ctx.store.insert(out, withId);
    }
  });
}

export const writeCommands: Record<string, Handler> = {
  insert,
  update,
  delete: deleteCommand,
  findAndModify,
  findandmodify: findAndModify,
};
