import { EJSON, type Document, type Long } from "bson";
import { performance } from "node:perf_hooks";
import { MongoCommandError } from "../errors";
import { isChangeStream, openChangeStream } from "../query/changestreams";
import { collatedOptions, makeAggregator } from "../query/collated-query";
import { canonicalizer, operationCollation } from "../query/collation";
import { withDatePartDefaults } from "../query/date-parts";
import { checkPipeline } from "../query/pipeline-check";
import { choosePlan } from "../query/planner";
import { topLevelExclusions } from "../query/projection";
import { countWork, explainPlan, findDocuments, findWork, mingoOptions, projectDocuments } from "../query/query";
import { rewriteMeta, SCORE_FIELD, splitMetaProjection, splitText, textScores } from "../query/text";
import { due, type Work } from "../query/work";
import { StoredDocument, withoutFields } from "../storage/bson-values";
import { isPlainObject, presentValuesAtPath } from "../storage/keys";
import type { Store } from "../storage/store";
import { ns } from "../storage/store";
import {
  collectionName,
  existing,
  optionalDocument,
  optionalNumber,
  readInSlices,
  type CommandContext,
  type Handler,
} from "./context";
import { writeOutStage } from "./write";

// Reads run in slices on a snapshot of their own (readInSlices): `store` is that snapshot's view.
const find: Handler = (cmd, ctx) => readInSlices(ctx, (store) => findRead(cmd, ctx, store));

function* findRead(cmd: Document, ctx: CommandContext, store: Store): Work<Document> {
  const name = collectionName(cmd, "find");
  const filter = optionalDocument(cmd, "filter") ?? {};
  const limit = optionalNumber(cmd, "limit") ?? 0;
  const skip = optionalNumber(cmd, "skip") ?? 0;
  const batchSize = optionalNumber(cmd, "batchSize");
  if (limit < 0) throw new MongoCommandError("BadValue", "LIMIT must be non-negative");
  if (skip < 0) throw new MongoCommandError("BadValue", "Skip value must be non-negative");
  if (batchSize !== undefined && batchSize < 0)
    throw new MongoCommandError("BadValue", "BatchSize value must be non-negative");
  const meta = store.collection(ctx.db, name);
  if (cmd.tailable === true) {
    if (!meta?.options.capped)
      throw new MongoCommandError(
        "BadValue",
        `error processing query: ns=${ns(ctx.db, name)} tailable cursor requested on non capped collection`,
      );
    throw new MongoCommandError(
      "BadValue",
      "Tailable cursors are not supported by the embedded database: set MONGODB_URI to use a MongoDB server",
    );
  }
  const options = collatedOptions(
    mingoOptions(store, ctx.db, optionalDocument(cmd, "let")),
    operationCollation(cmd.collation, meta),
  );
  const projection = optionalDocument(cmd, "projection");
  // Documents answered whole are answered with the bytes they are stored as (what MongoDB sends
  // too): neither decoded past what the filter and the sort read, nor encoded again. So are those
  // a projection only removes top-level fields of, with those fields cut out of the bytes.
  const whole = !projection || Object.keys(projection).length === 0;
  const excluded = whole ? undefined : topLevelExclusions(projection);
  const stored = (whole || excluded) && !splitText(filter) ? new WeakMap<Document, Buffer>() : undefined;
  const docs = yield* findWork(
    store,
    meta,
    { filter, sort: optionalDocument(cmd, "sort"), skip, limit, hint: cmd.hint, stored },
    options,
  );
  // Mapped or projected a slice at a time, pausing between slices.
  const answered = yield* inSlices(docs, (slice) =>
    stored
      ? slice.map((doc) => {
          const bytes = stored.get(doc);
          const answer = bytes && excluded ? withoutFields(bytes, excluded) : bytes;
          if (answer) return new StoredDocument(answer);
          // Bytes that cannot be walked were decoded whole: that document is projected as decoded.
          return excluded ? projectWithScore([doc], projection, filter, options)[0] : doc;
        })
      : projectWithScore(slice, projection, filter, options),
  );
  const firstBatchSize = limit > 0 && (batchSize === undefined || batchSize > limit) ? limit : batchSize;
  return ctx.cursors.open(ns(ctx.db, name), answered, firstBatchSize, cmd.singleBatch === true);
}

/** `map` applied to `docs` a slice at a time (each document alone), pausing between slices. */
function* inSlices(docs: Document[], map: (slice: Document[]) => Document[]): Work<Document[]> {
  const size = 256;
  if (docs.length <= size) return map(docs);
  const out: Document[] = [];
  for (let i = 0; i < docs.length; i += size) {
    for (const doc of map(docs.slice(i, i + size))) out.push(doc);
    yield;
  }
  return out;
}

function scoreOf(doc: Document): number {
  const score = textScores.get(doc);
  if (score === undefined)
    throw new MongoCommandError("Location40218", "query requires text score metadata, but it is not available");
  return score;
}

/** A find projection, where `{$meta: "textScore"}` adds the text score after the projected fields. */
function projectWithScore(
  docs: Document[],
  projection: Document | undefined,
  filter: Document,
  options: ReturnType<typeof mingoOptions>,
): Document[] {
  const { rest, meta } = splitMetaProjection(projection);
  const text = splitText(filter);
  const projected = projectDocuments(docs, rest, text ? text.rest : filter, options);
  if (meta.length === 0) return projected;
  return projected.map((doc, i) => {
    const score = scoreOf(docs[i]);
    return { ...doc, ...Object.fromEntries(meta.map((field) => [field, score])) };
  });
}

const getMore: Handler = (cmd, ctx) => {
  const id = cmd.getMore as Long | number;
  return ctx.cursors.getMore(
    id,
    collectionName(cmd, "collection"),
    ctx.db,
    optionalNumber(cmd, "batchSize"),
    optionalNumber(cmd, "maxTimeMS"),
  );
};

const killCursors: Handler = (cmd, ctx) => {
  collectionName(cmd, "killCursors");
  return ctx.cursors.kill(Array.isArray(cmd.cursors) ? (cmd.cursors as Array<Long | number>) : []);
};

const count: Handler = (cmd, ctx) => readInSlices(ctx, (store) => countRead(cmd, ctx, store));

function* countRead(cmd: Document, ctx: CommandContext, store: Store): Work<Document> {
  const meta = store.collection(ctx.db, collectionName(cmd, "count"));
  const spec = {
    filter: optionalDocument(cmd, "query") ?? {},
    skip: optionalNumber(cmd, "skip") ?? 0,
    limit: Math.abs(optionalNumber(cmd, "limit") ?? 0),
    hint: cmd.hint,
  };
  return {
    n: yield* countWork(
      store,
      meta,
      spec,
      collatedOptions(mingoOptions(store, ctx.db), operationCollation(cmd.collation, meta)),
    ),
    ok: 1,
  };
}

const distinct: Handler = (cmd, ctx) => readInSlices(ctx, (store) => distinctRead(cmd, ctx, store));

function* distinctRead(cmd: Document, ctx: CommandContext, store: Store): Work<Document> {
  const key = cmd.key;
  if (typeof key !== "string")
    throw new MongoCommandError("TypeMismatch", "BSON field 'distinct.key' is missing or not a string");
  const meta = store.collection(ctx.db, collectionName(cmd, "distinct"));
  const collation = operationCollation(cmd.collation, meta);
  const docs = yield* findWork(
    store,
    meta,
    { filter: optionalDocument(cmd, "query") ?? {}, hint: cmd.hint },
    collatedOptions(mingoOptions(store, ctx.db), collation),
  );
  const seen = new Map<string, unknown>();
  // Under a collation, strings it calls equal are one value (the first met).
  const canonical = collation ? canonicalizer(collation) : (v: unknown) => v;
  let read = 0;
  for (const doc of docs) {
    if (due(++read)) yield;
    for (const raw of presentValuesAtPath(doc, key)) {
      const value = canonical(raw);
      seen.set(EJSON.stringify({ v: value } as Document, { relaxed: false }), value);
    }
  }
  return { values: [...seen.values()], ok: 1 };
}

/**
 * The pipeline the driver's countDocuments sends — $match, optional $skip/$limit, then a $group
 * of a constant `_id` summing 1 — answered by countDocuments so indexes can count it.
 */
function countShape(
  pipeline: Document[],
): { filter: Document; skip: number; limit: number; id: unknown; field: string } | undefined {
  const [match, ...rest] = pipeline;
  const group = rest.pop();
  if (!match || !("$match" in match) || !group || !("$group" in group) || Object.keys(match).length !== 1)
    return undefined;
  const spec = group.$group as Document;
  const fields = Object.keys(spec).filter((k) => k !== "_id");
  const id = spec._id;
  if (
    fields.length !== 1 ||
    (id !== null && typeof id !== "number") ||
    JSON.stringify(spec[fields[0]]) !== '{"$sum":1}'
  )
    return undefined;
  let skip = 0;
  let limit = 0;
  for (const stage of rest) {
    if ("$skip" in stage && !limit) skip = Number(stage.$skip);
    else if ("$limit" in stage && !limit) limit = Number(stage.$limit);
    else return undefined;
  }
  return { filter: match.$match as Document, skip, limit, id, field: fields[0] };
}

const aggregate: Handler = async (cmd, ctx) => {
  if (!Array.isArray(cmd.pipeline))
    throw new MongoCommandError("TypeMismatch", "'pipeline' option must be specified as an array");
  if (cmd.cursor === undefined && cmd.explain !== true) {
    throw new MongoCommandError(
      "FailedToParse",
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  checkPipeline(cmd.pipeline as unknown[]);
  if (isChangeStream(cmd.pipeline)) return openChangeStream(cmd, ctx);
  // $match stages get the server's own $type, $all, $bits* and comparisons of documents when
  // the pipeline runs (makeAggregator); a leading one pushed down to the planner is compiled there.
  const pipeline = (cmd.pipeline as Document[]).map((stage) =>
    isPlainObject(stage.$match) ? stage : withDatePartDefaults(stage),
  );
  const last = pipeline[pipeline.length - 1];
  const out = last && ("$out" in last || "$merge" in last) ? pipeline.pop() : undefined;
  // The read runs in slices on its snapshot; $out and $merge then write what it found.
  const read = await readInSlices(ctx, (store) => aggregateRead(cmd, ctx, store, pipeline, out));
  if ("reply" in read) return read.reply;
  let results = read.results;
  if (out) {
    await writeOutStage(ctx, out, results, cmd);
    results = [];
  }
  const cursor = (cmd.cursor ?? {}) as Document;
  return ctx.cursors.open(read.namespace, results, optionalNumber(cursor, "batchSize"));
};

/** The reading part of an aggregate: its reply (a count, an explain), or its results before $out/$merge. */
function* aggregateRead(
  cmd: Document,
  ctx: CommandContext,
  store: Store,
  pipeline: Document[],
  out: Document | undefined,
): Work<{ reply: Document } | { results: Document[]; namespace: string }> {
  const target = cmd.aggregate;
  const collation = operationCollation(
    cmd.collation,
    typeof target === "string" ? store.collection(ctx.db, target) : undefined,
  );
  const options = collatedOptions(mingoOptions(store, ctx.db, optionalDocument(cmd, "let")), collation);

  let source: Document[];
  let namespace: string;
  let scored = false;
  if (target === 1) {
    namespace = ns(ctx.db, "$cmd.aggregate");
    source = [];
  } else {
    const name = collectionName(cmd, "aggregate");
    namespace = ns(ctx.db, name);
    const meta = store.collection(ctx.db, name);
    const counting = cmd.explain !== true && !out && cmd.hint === undefined ? countShape(pipeline) : undefined;
    if (counting) {
      const n = yield* countWork(store, meta, counting, options);
      const cursor = (cmd.cursor ?? {}) as Document;
      return {
        reply: ctx.cursors.open(
          namespace,
          n > 0 ? [{ _id: counting.id, [counting.field]: n }] : [],
          optionalNumber(cursor, "batchSize"),
        ),
      };
    }
    // Push a leading $match (and a $sort right after it) down to the planner so indexes serve it.
    const spec: { filter?: Document; sort?: Document; skip?: number; limit?: number } = {};
    if (pipeline[0] && "$match" in pipeline[0] && !JSON.stringify(pipeline[0]).includes('"$expr"')) {
      spec.filter = pipeline.shift()!.$match as Document;
      if (pipeline[0] && "$sort" in pipeline[0]) {
        spec.sort = pipeline.shift()!.$sort as Document;
        // The page after the sort bounds the walk, as MongoDB's own pushdown does: a page of a
        // large collection reads its page, not every match (not for $text or a view, read apart).
        if (!meta?.options.viewOn && !JSON.stringify(spec.filter).includes('"$text"'))
          Object.assign(spec, pageAhead(pipeline));
      }
    }
    if (cmd.explain === true) {
      const plan = meta
        ? explainPlan(choosePlan(spec.filter ?? {}, spec.sort, meta.indexes, cmd.hint, collation))
        : { stage: "EOF" };
      return { reply: { queryPlanner: { namespace, winningPlan: plan }, ok: 1 } };
    }
    source = yield* findWork(store, meta, Object.assign({}, spec, { hint: cmd.hint }), options);
    if (pipeline.some((stage) => "$match" in stage && JSON.stringify(stage).includes('"$text"'))) {
      throw new MongoCommandError("Location17313", "$match with $text is only allowed as the first pipeline stage");
    }
    // {$meta: "textScore"} reads the score through a hidden field, removed from the results.
    if (JSON.stringify(pipeline).includes('"textScore"')) {
      source = source.map((doc) => ({ ...doc, [SCORE_FIELD]: scoreOf(doc) }));
      pipeline.splice(0, pipeline.length, ...(rewriteMeta(pipeline) as Document[]));
      scored = true;
    }
  }
  let results: Document[] = [];
  try {
    if (pipeline.length === 0) results = source;
    else {
      // Pulled one result at a time: the streaming stages ($match, $project ...) pause between
      // documents; a stage that needs all its input first ($group, $sort) runs in one piece.
      const stream = makeAggregator(pipeline, options).stream(source);
      let pulled = 0;
      for (let next = stream.next(); !next.done; next = stream.next()) {
        results.push(next.value as Document);
        if (due(++pulled)) yield;
      }
    }
  } catch (err) {
    if (err instanceof MongoCommandError) throw err;
    throw new MongoCommandError("BadValue", err instanceof Error ? err.message : String(err));
  }
  if (scored) {
    results = results.map((doc) => {
      if (!(SCORE_FIELD in doc)) return doc;
      const { [SCORE_FIELD]: _score, ...rest } = doc;
      void _score;
      return rest;
    });
  }
  return { results, namespace };
}

/**
 * A `$limit`, or a `$skip` then a `$limit`, at the head of `stages`, taken out of them for the
 * planner's walk; anything else (another order, a value MongoDB refuses) stays for the pipeline.
 */
function pageAhead(stages: Document[]): { skip?: number; limit?: number } {
  const count = (stage: Document | undefined, name: string, least: number) => {
    const value = stage && Object.keys(stage).length === 1 ? stage[name] : undefined;
    return typeof value === "number" && Number.isSafeInteger(value) && value >= least ? value : undefined;
  };
  const limit = count(stages[0], "$limit", 1);
  if (limit !== undefined) {
    stages.shift();
    return { limit };
  }
  const skip = count(stages[0], "$skip", 0);
  const after = skip === undefined ? undefined : count(stages[1], "$limit", 1);
  if (after === undefined) return {};
  stages.splice(0, 2);
  return { skip, limit: after };
}

/** explain of find, count, distinct and aggregate: the plan, and with executionStats its cost. */
const explain: Handler = (cmd, ctx) => {
  const inner = optionalDocument(cmd, "explain");
  if (!inner) throw new MongoCommandError("BadValue", "explain command requires a nested object");
  const name = Object.keys(inner)[0];
  const collection = String(inner[name]);
  const meta = existing(ctx, collection);
  const pipeline = Array.isArray(inner.pipeline) ? (inner.pipeline as Document[]) : [];
  const leadingMatch = pipeline[0] && "$match" in pipeline[0] ? (pipeline[0].$match as Document) : undefined;
  const filter = (inner.filter ?? inner.query ?? leadingMatch ?? {}) as Document;
  const sort = inner.sort as Document | undefined;
  const collation = operationCollation(inner.collation, meta);
  const reply: Document = {
    queryPlanner: {
      namespace: ns(ctx.db, collection),
      winningPlan: meta ? explainPlan(choosePlan(filter, sort, meta.indexes, inner.hint, collation)) : { stage: "EOF" },
    },
    ok: 1,
  };
  if (cmd.verbosity !== "queryPlanner") {
    const stats = { docsExamined: 0, keysExamined: 0 };
    const started = performance.now();
    const docs = findDocuments(
      ctx.store,
      meta,
      {
        filter,
        sort,
        skip: optionalNumber(inner, "skip"),
        limit: Math.abs(optionalNumber(inner, "limit") ?? 0),
        hint: inner.hint,
        stats,
      },
      collatedOptions(mingoOptions(ctx.store, ctx.db), collation),
    );
    reply.executionStats = {
      executionSuccess: true,
      nReturned: docs.length,
      totalKeysExamined: stats.keysExamined,
      totalDocsExamined: stats.docsExamined,
      executionTimeMillis: Math.round(performance.now() - started),
    };
  }
  return reply;
};

export const readCommands: Record<string, Handler> = {
  find,
  getMore,
  killCursors,
  count,
  distinct,
  aggregate,
  explain,
};
