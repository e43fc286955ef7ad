import { UUID, type Document } from "bson";
import { Query } from "mingo";
import { MongoCommandError } from "../errors";
import { collationSpec, parseCollation, sameCollation } from "../query/collation";
import { isTextIndex, textIndexSpec } from "../query/text";
import { ID_INDEX, type IndexSpec } from "../storage/index-spec";
import { ns, type CollectionMeta } from "../storage/store";
import { metaTimeIndexKey, type TimeseriesOptions } from "../storage/timeseries";
import { checkCollectionOptions, collMod } from "./coll-options";
import { collectionName, existing, optionalDocument, optionalNumber, type Handler } from "./context";

const create: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "create");
  if (existing(ctx, name))
    throw new MongoCommandError("NamespaceExists", `Collection ${ns(ctx.db, name)} already exists.`);
  const options = { ...cmd };
  for (const key of [
    "create",
    "$db",
    "lsid",
    "$clusterTime",
    "writeConcern",
    "comment",
    "txnNumber",
    "$readPreference",
  ])
    delete options[key];
  if (options.viewOn !== undefined && (typeof options.viewOn !== "string" || !Array.isArray(options.pipeline ?? []))) {
    throw new MongoCommandError("TypeMismatch", "'viewOn' must be a string and 'pipeline' an array");
  }
  checkCollectionOptions(options, ns(ctx.db, name));
  // The default collation of every operation and index, kept in full as MongoDB reports it.
  const collation = collationSpec(parseCollation(options.collation));
  if (collation) options.collation = collation;
  else delete options.collation;
  const timeseries = options.timeseries as TimeseriesOptions | undefined;
  const metaTime = timeseries && metaTimeIndexKey(timeseries);
  await ctx.store.write(() => {
    const { meta } = ctx.store.ensureCollection(ctx.db, name, options);
    if (metaTime)
      ctx.store.createIndex(meta, {
        v: 2,
        key: metaTime,
        name: Object.entries(metaTime)
          .map(([f, d]) => `${f}_${String(d)}`)
          .join("_"),
        multikeyFields: [],
      });
  });
  return { ok: 1 };
};

const drop: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "drop");
  const meta = existing(ctx, name);
  if (!meta) throw new MongoCommandError("NamespaceNotFound", "ns not found");
  await ctx.store.write(() => ctx.store.dropCollection(meta));
  return { ns: ns(ctx.db, name), nIndexesWas: meta.indexes.length, ok: 1 };
};

const dropDatabase: Handler = async (_cmd, ctx) => {
  const metas = ctx.store.collections(ctx.db);
  await ctx.store.write(() => {
    for (const meta of metas) ctx.store.dropCollection(meta);
    if (metas.length > 0) ctx.store.log({ op: "dropDatabase", db: ctx.db });
  });
  return { dropped: ctx.db, ok: 1 };
};

function publicSpec(index: IndexSpec): Document {
  const { multikeyFields: _internal, ...spec } = index;
  void _internal;
  return spec;
}

function collectionInfo(meta: CollectionMeta): Document {
  if (meta.options.viewOn) return { name: meta.name, type: "view", options: meta.options, info: { readOnly: true } };
  // As MongoDB reports the view over a time-series collection's buckets: no uuid, no _id index.
  if (meta.options.timeseries)
    return { name: meta.name, type: "timeseries", options: meta.options, info: { readOnly: false } };
  return {
    name: meta.name,
    type: "collection",
    options: meta.options,
    info: { readOnly: false, uuid: UUID.createFromHexString(meta.uuid) },
    idIndex: publicSpec(meta.indexes.find((i) => i.name === ID_INDEX.name) ?? ID_INDEX),
  };
}

const listCollections: Handler = (cmd, ctx) => {
  const filter = optionalDocument(cmd, "filter") ?? {};
  const query = new Query(filter);
  let infos = ctx.store
    .collections(ctx.db)
    .map(collectionInfo)
    .filter((info) => query.test(info));
  if (cmd.nameOnly === true) infos = infos.map((i) => ({ name: i.name, type: i.type }));
  const cursor = (cmd.cursor ?? {}) as Document;
  return ctx.cursors.open(ns(ctx.db, "$cmd.listCollections"), infos, optionalNumber(cursor, "batchSize"));
};

const listDatabases: Handler = (cmd, ctx) => {
  const filter = new Query(optionalDocument(cmd, "filter") ?? {});
  const databases = ctx.store
    .databases()
    .map((name) => {
      const docs = ctx.store.collections(name).reduce((sum, meta) => sum + ctx.store.count(meta), 0);
      return { name, sizeOnDisk: docs * 512, empty: docs === 0 };
    })
    .filter((d) => filter.test(d));
  const totalSize = databases.reduce((sum, d) => sum + d.sizeOnDisk, 0);
  return cmd.nameOnly === true
    ? { databases: databases.map((d) => ({ name: d.name })), ok: 1 }
    : { databases, totalSize, totalSizeMb: Math.round(totalSize / 2 ** 20), ok: 1 };
};

const INDEX_OPTIONS = new Set([
  "v",
  "name",
  "key",
  "unique",
  "sparse",
  "partialFilterExpression",
  "expireAfterSeconds",
  "background",
  "collation",
  "hidden",
  "weights",
  "default_language",
  "language_override",
  "textIndexVersion",
]);
const TEXT_OPTIONS = ["weights", "default_language", "language_override", "textIndexVersion"];

function validateIndexSpec(raw: Document, defaultCollation: Document | undefined): IndexSpec {
  const key = raw.key as Document | undefined;
  if (!key || typeof key !== "object" || Object.keys(key).length === 0)
    throw new MongoCommandError("CannotCreateIndex", "Index keys cannot be empty.");
  const text = Object.values(key).includes("text");
  const hashed = Object.entries(key)
    .filter(([, dir]) => dir === "hashed")
    .map(([field]) => field);
  for (const [field, dir] of Object.entries(key)) {
    const n = Number(dir);
    if (!(n === 1 || n === -1 || dir === "hashed" || dir === "text"))
      throw new MongoCommandError(
        "CannotCreateIndex",
        `Index type '${String(dir)}' on field '${field}' is not supported by this server: use 1 or -1`,
      );
  }
  const collation = raw.collation as Document | undefined;
  if (text && collation && collation.locale !== "simple") {
    throw new MongoCommandError(
      "CannotCreateIndex",
      `Index type 'text' does not support collation: ${JSON.stringify(collation)}`,
    );
  }
  if (hashed.length > 1)
    throw new MongoCommandError(
      "CannotCreateIndex",
      "A maximum of one index field is allowed to be hashed but found 2 for 'key' " + JSON.stringify(key),
    );
  if (hashed.length && raw.unique === true)
    throw new MongoCommandError(
      "CannotCreateIndex",
      "Currently hashed indexes cannot guarantee uniqueness. Use a regular index.",
    );
  if (typeof raw.name !== "string" || !raw.name)
    throw new MongoCommandError("CannotCreateIndex", "The index name must be a non-empty string");
  for (const option of Object.keys(raw)) {
    if (!INDEX_OPTIONS.has(option) || (!text && TEXT_OPTIONS.includes(option)))
      throw new MongoCommandError("InvalidOptions", `The field '${option}' is not valid for an index specification.`);
  }
  const spec: IndexSpec = text
    ? textIndexSpec(raw)
    : {
        v: 2,
        key: Object.fromEntries(Object.entries(key).map(([f, d]) => [f, d === "hashed" ? d : Number(d)])),
        name: raw.name,
      };
  if (raw.unique === true) spec.unique = true;
  if (raw.sparse === true) spec.sparse = true;
  if (raw.partialFilterExpression) spec.partialFilterExpression = raw.partialFilterExpression as Document;
  if (raw.expireAfterSeconds !== undefined) spec.expireAfterSeconds = Number(raw.expireAfterSeconds);
  // Without a collation of its own, an index takes the collection's default; `simple` opts out.
  // A text index takes none (MongoDB's text indexes compare by their own rules).
  const indexCollation =
    raw.collation === undefined ? (text ? undefined : defaultCollation) : collationSpec(parseCollation(raw.collation));
  if (indexCollation) spec.collation = indexCollation;
  if (raw.hidden !== undefined) {
    if (typeof raw.hidden !== "boolean")
      throw new MongoCommandError("TypeMismatch", "The field 'hidden' must be a boolean");
    if (raw.hidden && spec.name === "_id_") throw new MongoCommandError("BadValue", "can't hide _id index");
    if (raw.hidden) spec.hidden = true;
  }
  return spec;
}

const createIndexes: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "createIndexes");
  if (!Array.isArray(cmd.indexes) || cmd.indexes.length === 0)
    throw new MongoCommandError("BadValue", "Must specify at least one index to create");
  const specs = (cmd.indexes as Document[]).map((raw) =>
    validateIndexSpec(raw, existing(ctx, name)?.options.collation as Document | undefined),
  );
  if (existing(ctx, name)?.options.timeseries) {
    for (const spec of specs) {
      if (spec.unique)
        throw new MongoCommandError("InvalidOptions", "Unique indexes are not supported on time-series collections");
      if (isTextIndex(spec))
        throw new MongoCommandError("InvalidOptions", "Text indexes are not supported on time-series collections");
    }
  }
  return ctx.store.write(() => {
    const { meta, created } = ctx.store.ensureCollection(ctx.db, name);
    const before = meta.indexes.length;
    const toBuild: IndexSpec[] = [];
    for (const spec of specs) {
      const existingIndexes = [...meta.indexes, ...toBuild];
      const otherText =
        isTextIndex(spec) &&
        existingIndexes.find(
          (i) => isTextIndex(i) && (i.name !== spec.name || JSON.stringify(publicSpec(i)) !== JSON.stringify(spec)),
        );
      if (otherText) {
        throw new MongoCommandError(
          "CannotCreateIndex",
          `only one text index per collection allowed, found existing text index "${otherText.name}"`,
        );
      }
      const sameName = existingIndexes.find((i) => i.name === spec.name);
      const collationOf = (i: IndexSpec) => (i.collation ? parseCollation(i.collation) : undefined);
      // Indexes of one key pattern may differ by collation (and then by name).
      const sameKey = existingIndexes.find(
        (i) => JSON.stringify(i.key) === JSON.stringify(spec.key) && sameCollation(collationOf(i), collationOf(spec)),
      );
      if (
        sameName &&
        JSON.stringify(sameName.key) === JSON.stringify(spec.key) &&
        !sameCollation(collationOf(sameName), collationOf(spec))
      ) {
        throw new MongoCommandError(
          "IndexOptionsConflict",
          `An existing index has the same name as the requested index but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(publicSpec(sameName))}`,
        );
      }
      if (sameName && JSON.stringify(sameName.key) !== JSON.stringify(spec.key)) {
        throw new MongoCommandError(
          "IndexKeySpecsConflict",
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(publicSpec(sameName))}`,
        );
      }
      if (sameKey) {
        if (sameKey.name !== spec.name || Boolean(sameKey.unique) !== Boolean(spec.unique)) {
          throw new MongoCommandError(
            "IndexOptionsConflict",
            `Index already exists with a different name: ${sameKey.name}`,
          );
        }
        continue;
      }
      toBuild.push(spec);
    }
    // All or none: every index is checked against the data before any is built.
    const prepared = toBuild.map((spec) => ctx.store.prepareIndex(meta, spec));
    for (const p of prepared) ctx.store.buildIndex(meta, p);
    const reply: Document = {
      numIndexesBefore: before,
      numIndexesAfter: meta.indexes.length,
      createdCollectionAutomatically: created,
      ok: 1,
    };
    if (before === meta.indexes.length) reply.note = "all indexes already exist";
    return reply;
  });
};

const listIndexes: Handler = (cmd, ctx) => {
  const name = collectionName(cmd, "listIndexes");
  const meta = existing(ctx, name);
  if (!meta) throw new MongoCommandError("NamespaceNotFound", `ns does not exist: ${ns(ctx.db, name)}`);
  const cursor = (cmd.cursor ?? {}) as Document;
  // A time-series collection has no `_id` index in MongoDB; the one kept here is internal.
  const indexes = meta.options.timeseries ? meta.indexes.filter((i) => i.name !== ID_INDEX.name) : meta.indexes;
  return ctx.cursors.open(ns(ctx.db, name), indexes.map(publicSpec), optionalNumber(cursor, "batchSize"));
};

const dropIndexes: Handler = async (cmd, ctx) => {
  const name = collectionName(cmd, "dropIndexes" in cmd ? "dropIndexes" : "deleteIndexes");
  const meta = existing(ctx, name);
  if (!meta) throw new MongoCommandError("NamespaceNotFound", `ns not found ${ns(ctx.db, name)}`);
  const target = cmd.index;
  const before = meta.indexes.length;
  let names: string[];
  if (target === "*") names = meta.indexes.filter((i) => i.name !== ID_INDEX.name).map((i) => i.name);
  else if (typeof target === "string") names = [target];
  else if (Array.isArray(target)) names = target.map(String);
  else {
    const byKey = meta.indexes.find((i) => JSON.stringify(i.key) === JSON.stringify(target));
    if (!byKey) throw new MongoCommandError("IndexNotFound", `can't find index with key: ${JSON.stringify(target)}`);
    names = [byKey.name];
  }
  for (const n of names) {
    if (n === ID_INDEX.name) throw new MongoCommandError("InvalidOptions", "cannot drop _id index");
    if (!meta.indexes.some((i) => i.name === n))
      throw new MongoCommandError("IndexNotFound", `index not found with name [${n}]`);
  }
  await ctx.store.write(() => {
    for (const n of names) ctx.store.dropIndex(meta, n);
  });
  return { nIndexesWas: before, ok: 1 };
};

const renameCollection: Handler = async (cmd, ctx) => {
  const [fromDb, ...fromRest] = String(cmd.renameCollection).split(".");
  const [toDb, ...toRest] = String(cmd.to).split(".");
  const meta = ctx.store.collection(fromDb, fromRest.join("."));
  if (!meta) throw new MongoCommandError("NamespaceNotFound", "source namespace does not exist");
  const targetName = toRest.join(".");
  const target = ctx.store.collection(toDb, targetName);
  if (target && cmd.dropTarget !== true) throw new MongoCommandError("NamespaceExists", "target namespace exists");
  await ctx.store.write(() => {
    if (target) ctx.store.dropCollection(target);
    ctx.store.renameCollection(meta, toDb, targetName);
  });
  return { ok: 1 };
};

export const ddlCommands: Record<string, Handler> = {
  create,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
  renameCollection,
  collMod,
};
