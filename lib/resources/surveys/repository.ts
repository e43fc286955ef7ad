/**
 * The surveys collection and the records behind a survey (its revisions, chats, questions and
 * answers): the model, the only code that reads or writes them, and how a stored survey is shown
 * by the API (also inside revisions).
 *
 * One way to the database: the driver, typed by the models' lean types (single-batch reads of
 * lib/kernel/models/read.ts, which the read workers share, and writes on the model's collection, whose
 * update pipelines Mongoose would not pass through unchanged); the Mongoose schemas declare the
 * fields, defaults and indexes.
 */
import type { SurveyVersion } from "@/lib/base/shared/survey-permissions";
import {
  countKey,
  type CountKey,
  countsChanged,
  sharedCount,
  type StoredCount,
  storedCounts,
} from "@/lib/kernel/counts";
import { writtenPage, type WrittenPage } from "@/lib/kernel/cursor";
import { entityTag } from "@/lib/kernel/entity-tag";
import { isDuplicateKeyError } from "@/lib/kernel/errors";
import { type ObjectId as Id, newId } from "@/lib/kernel/ids";
import type { WrittenRecord } from "@/lib/kernel/json-text";
import { defineModel, driverCollection, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import { oncePerDatabase } from "@/lib/kernel/models/meta";
import { aggregateDocs, findDocs, findOneDoc, type ReadOptions } from "@/lib/kernel/models/read";
import { Answer, type AnswerDoc } from "@/lib/resources/answers/repository";
import type { AnyBulkWriteOperation, Document, Filter } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { SURVEY_FIELDS, type SurveyChatRecord, type SurveyField, type SurveyRecord } from "./contract";
import { Question, type QuestionDoc, SurveyChat, type SurveyChatDoc, SurveyRevision } from "./parts";
import { lower, searchPrefixesUpdate, surveySearchPrefixes } from "./search";

const ids = { type: [{ type: ObjectId }], default: [] };

const surveySchema = new Schema(
  {
    code: { type: String, required: true },
    name: { type: String, required: true },
    /** `name` lowercased, for `search` (never shown by the API, as `searchPrefixes`). */
    nameLower: { type: String, required: true },
    /**
     * Every prefix (up to 32 code points) of `code` and of `nameLower`: `search` is then one
     * equality on an index that also serves the newest-first order (./search.ts).
     */
    searchPrefixes: { type: [String], default: [] },
    version: { type: Number, enum: [1, 2], required: true },
    company: { type: ObjectId, required: true },
    isActive: { type: Boolean, required: true, default: true },
    isSystemModel: { type: Boolean, required: true, default: false },
    // Version 1 permission model (docs/api.md#permission-models).
    permissions: ids,
    group: { type: String, default: null },
    groupPermissions: ids,
    // Version 2 permission model.
    permissionsV2: {
      type: [
        new Schema(
          { accessRole: { type: ObjectId, required: true }, canAnswer: Boolean, canViewAnswers: Boolean },
          { _id: false, strict: "throw" },
        ),
      ],
      default: [],
    },
    groupPermissionsV2: {
      type: [
        new Schema({ group: { type: String, required: true }, accessRoles: ids }, { _id: false, strict: "throw" }),
      ],
      default: [],
    },
    onlySubSurvey: { type: Boolean, required: true, default: false },
    propertiesChannel: ids,
    propertiesLimit: ids,
    responders: ids,
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
    /** The revision counter: 0 on creation, one more per successful update. */
    __v: { type: Number, required: true, default: 0 },
    /**
     * Never shown, as `nameLower`: who made this state of the survey, and the stored state the
     * last update replaced, so either revision can still be written after a crash
     * (`sealRevisions` below).
     */
    revisionBy: { type: ObjectId, default: null },
    previous: { type: Schema.Types.Mixed, default: undefined },
    /**
     * The content as the last content PUT wrote it (chats with their questions, in order), kept
     * in the survey so that its revisions hold it; shown only inside revisions. The chats and
     * questions collections follow it (`syncContent`); `contentPending` marks a survey whose
     * collections may not have followed yet (a write stopped half-way).
     */
    chat: { type: Schema.Types.Mixed, default: undefined },
    contentPending: { type: Boolean, default: undefined },
  },
  { ...schemaOptions, collection: "surveys" },
);

// `code` is unique within a company; the index also answers the code half of `search`.
surveySchema.index({ company: 1, code: 1 }, { unique: true });
// The default list (active surveys, newest first) and the list with isActive=all.
surveySchema.index({ company: 1, isActive: 1, modifiedAt: 1, _id: 1 });
surveySchema.index({ company: 1, modifiedAt: 1, _id: 1 });
// `search` (a prefix of code or name), active surveys newest first; counted from the index alone.
surveySchema.index({ company: 1, searchPrefixes: 1, isActive: 1, modifiedAt: 1, _id: 1 });
// The orders by name and by code (docs/api.md#sorting), with and without isActive; isActive=all by
// code walks the unique index above.
surveySchema.index({ company: 1, isActive: 1, nameLower: 1, _id: 1 });
surveySchema.index({ company: 1, nameLower: 1, _id: 1 });
surveySchema.index({ company: 1, isActive: 1, code: 1 });

export const Survey = defineModel("Survey", surveySchema);

type SurveyDoc = mongoose.InferSchemaType<typeof surveySchema> & { _id: mongoose.Types.ObjectId };

/** A survey as a read without Mongoose documents answers it: permission entries are plain objects. */
export type LeanSurvey = Omit<SurveyDoc, "group" | "permissionsV2" | "groupPermissionsV2" | "chat"> & {
  chat?: StoredChat[] | null;
  group: string | null;
  permissionsV2: { accessRole: Id; canAnswer?: boolean | null; canViewAnswers?: boolean | null }[];
  groupPermissionsV2: { group: string; accessRoles: Id[] }[];
};

/** A survey's content as the survey document and its revisions keep it. */
export interface StoredChat {
  _id: Id;
  name: string;
  order: number;
  questions: { _id: Id; text: string; type: string; options: string[]; order: number }[];
}

/** What a new survey is made of; every field left out takes the default of a new survey. */
export interface NewSurvey {
  _id?: Id;
  code: string;
  name: string;
  version: SurveyVersion;
  company: Id;
  isActive?: boolean;
  isSystemModel?: boolean;
  permissions?: Id[];
  group?: string | null;
  groupPermissions?: Id[];
  permissionsV2?: { accessRole: Id; canAnswer: boolean; canViewAnswers: boolean }[];
  groupPermissionsV2?: { group: string; accessRoles: Id[] }[];
  onlySubSurvey?: boolean;
  propertiesChannel?: Id[];
  propertiesLimit?: Id[];
  responders?: Id[];
  createdAt: Date;
  /** `createdAt` when left out. */
  modifiedAt?: Date;
  /** Who creates it (`null`: the service itself, a seed or an import). */
  revisionBy?: Id | null;
  /** Its content, when it is made with chats and questions (the seed). */
  chat?: StoredChat[];
}

/**
 * A survey document as stored, built in this one place for the service, the seed and the
 * benchmark, so a new field is added once. The search fields always derive from code and name.
 */
export function newDoc(survey: NewSurvey): LeanSurvey {
  return {
    _id: survey._id ?? newId(),
    code: survey.code,
    name: survey.name,
    nameLower: lower(survey.name),
    searchPrefixes: surveySearchPrefixes(survey.code, survey.name),
    version: survey.version,
    company: survey.company,
    isActive: survey.isActive ?? true,
    isSystemModel: survey.isSystemModel ?? false,
    permissions: survey.permissions ?? [],
    group: survey.group ?? null,
    groupPermissions: survey.groupPermissions ?? [],
    permissionsV2: survey.permissionsV2 ?? [],
    groupPermissionsV2: survey.groupPermissionsV2 ?? [],
    onlySubSurvey: survey.onlySubSurvey ?? false,
    propertiesChannel: survey.propertiesChannel ?? [],
    propertiesLimit: survey.propertiesLimit ?? [],
    responders: survey.responders ?? [],
    createdAt: survey.createdAt,
    modifiedAt: survey.modifiedAt ?? survey.createdAt,
    __v: 0,
    revisionBy: survey.revisionBy ?? null,
    ...(survey.chat ? { chat: survey.chat } : {}),
  };
}

const hex = (id: Id) => id.toHexString();
const hexAll = (ids: Id[] | undefined) => (ids ?? []).map(hex);

const SERIALISERS: { [K in SurveyField]: (doc: LeanSurvey) => SurveyRecord[K] } = {
  _id: (doc) => hex(doc._id),
  code: (doc) => doc.code,
  name: (doc) => doc.name,
  version: (doc) => doc.version as SurveyVersion,
  company: (doc) => hex(doc.company),
  isActive: (doc) => doc.isActive ?? true,
  isSystemModel: (doc) => doc.isSystemModel ?? false,
  permissions: (doc) => hexAll(doc.permissions),
  group: (doc) => doc.group ?? null,
  groupPermissions: (doc) => hexAll(doc.groupPermissions),
  permissionsV2: (doc) =>
    (doc.permissionsV2 ?? []).map((entry) => ({
      accessRole: hex(entry.accessRole),
      canAnswer: entry.canAnswer ?? true,
      canViewAnswers: entry.canViewAnswers ?? false,
    })),
  groupPermissionsV2: (doc) =>
    (doc.groupPermissionsV2 ?? []).map((entry) => ({ group: entry.group, accessRoles: hexAll(entry.accessRoles) })),
  onlySubSurvey: (doc) => doc.onlySubSurvey ?? false,
  propertiesChannel: (doc) => hexAll(doc.propertiesChannel),
  propertiesLimit: (doc) => hexAll(doc.propertiesLimit),
  responders: (doc) => hexAll(doc.responders),
  createdAt: (doc) => doc.createdAt.toISOString(),
  modifiedAt: (doc) => doc.modifiedAt.toISOString(),
  __v: (doc) => doc.__v ?? 0,
};

/** The record as the API shows it: only `fields` (all by default), never internal fields. */
export function toSurveyRecord(doc: LeanSurvey, fields: readonly SurveyField[] = SURVEY_FIELDS): Partial<SurveyRecord> {
  const record: Record<string, unknown> = {};
  for (const field of fields) record[field] = SERIALISERS[field](doc);
  return record as Partial<SurveyRecord>;
}

/**
 * The entity tag of a survey: every write of a survey raises `__v` and moves `modifiedAt`; the
 * rest of its stored document changes only in bookkeeping no answer shows.
 */
export const surveyTag = (survey: { _id: string; __v: number; modifiedAt: string }): string =>
  entityTag("survey", [survey._id, survey.__v, survey.modifiedAt]);

/**
 * The tag of a survey as answered: with its chats an answer also changes with them and their
 * answer counts, which are not the survey's stored record, so it is a weak tag of the whole
 * answer, which If-Match never accepts.
 */
export const surveyAnswerTag = (survey: { _id: string; __v: number; modifiedAt: string; chat?: unknown }): string =>
  survey.chat ? `W/${entityTag("survey-populated", [surveyTag(survey), survey.chat])}` : surveyTag(survey);

/** The tag of a survey as stored. */
export const storedSurveyTag = (doc: Pick<LeanSurvey, "_id" | "__v" | "modifiedAt">): string =>
  surveyTag({ _id: doc._id.toHexString(), __v: doc.__v ?? 0, modifiedAt: doc.modifiedAt.toISOString() });

/** A read of survey records: the filter must already be scoped to the caller's company. */
export interface SurveyRecordsQuery extends ReadOptions {
  filter: Filter<Document>;
  projection: Document;
  /** The fields of each record, as {@link toSurveyRecord} takes them. */
  fields: readonly SurveyField[];
}

/** Runs on a read worker (lib/platform/startup/read-tasks.ts) as well as in the calling thread. */
export async function readSurveyRecords({
  fields,
  filter,
  ...options
}: SurveyRecordsQuery): Promise<Partial<SurveyRecord>[]> {
  const docs = await findDocs<LeanSurvey>(Survey, filter, options);
  return docs.map((doc) => toSurveyRecord(doc, fields));
}

/** What a list's cursor reads of a survey (./service.ts `surveyPosition`). */
export type SurveyPosition = Pick<Partial<SurveyRecord>, "_id" | "modifiedAt" | "name" | "code">;

/** A survey as a list shows it: the fields asked for, and always `_id` (./service.ts reads it). */
type ListedSurvey = Partial<SurveyRecord> & Pick<SurveyRecord, "_id">;

/**
 * {@link readSurveyRecords} for the list's answer: each record written as JSON where it was read
 * (lib/kernel/json-text.ts), without `omit`, beside the fields its cursor reads.
 */
export async function readWrittenSurveys({
  omit,
  counted,
  ...query
}: SurveyRecordsQuery & {
  omit?: SurveyField;
  /** The key of `count=true`'s filter ({@link surveyCountKey}): its stored count is read beside the page, for {@link countSurveys}. */
  counted?: CountKey;
}): Promise<WrittenPage<SurveyPosition, ListedSurvey> & { counts?: StoredCount[] }> {
  const [read, counts] = await Promise.all([readSurveyRecords(query), counted ? storedCounts(counted) : undefined]);
  const records = read as ListedSurvey[];
  // An `undefined` member is not written: the record without `omit`, positioned by the one read.
  const shown = omit ? records.map((record) => ({ ...record, [omit]: undefined })) : records;
  const page = writtenPage(shown, (_, at) => {
    const { _id, modifiedAt, name, code } = records[at];
    return { _id, modifiedAt, name, code };
  });
  return counts ? { ...page, counts } : page;
}

// ---------------------------------------------------------------------------------------------
// Surveys

const surveys = () => driverCollection<LeanSurvey>(Survey);

/**
 * Fields of a stored survey that are bookkeeping, not the survey: no answer and no snapshot shows
 * them. `previous` is the stored state the last write replaced and `revisionBy` who made the
 * current one, so that the revision of either can still be written after a crash (`sealRevisions`).
 */
const INTERNAL_SURVEY_FIELDS = ["nameLower", "searchPrefixes", "previous", "revisionBy", "contentPending"] as const;

/** A projection that leaves the bookkeeping fields out, and the stored content (records never show it). */
export const WITHOUT_INTERNAL_FIELDS: Readonly<Record<string, 0>> = Object.fromEntries(
  [...INTERNAL_SURVEY_FIELDS, "chat"].map((field) => [field, 0]),
);

/** One survey as stored (all fields unless `projection` says otherwise); `null` if none matches. */
const findSurvey = (filter: Filter<Document>, projection?: Document): Promise<LeanSurvey | null> =>
  findOneDoc<LeanSurvey>(Survey, filter, projection);

/** Inserts a document built by {@link newDoc}; a code taken in the company fails with the duplicate-key error. */
export async function insertSurvey(doc: LeanSurvey): Promise<void> {
  await surveys().insertOne(doc);
}

/** The survey of the company whose content write is still pending (./content-sync.ts), with the fields of `projection`; else `null`. */
export const findPendingContent = (companyId: Id, surveyId: Id, projection: Document): Promise<LeanSurvey | null> =>
  findSurvey({ _id: surveyId, company: companyId, contentPending: true }, projection);

/** The survey `surveyId` if it is a survey of the company (all fields unless `projection` says otherwise); else `null`. */
export const findCompanySurvey = (companyId: Id, surveyId: Id, projection?: Document): Promise<LeanSurvey | null> =>
  findSurvey({ _id: surveyId, company: companyId }, projection);

/** When a change of a survey happens and who makes it. */
export interface Write {
  at: Date;
  by: Id | null;
}

/** What a PATCH changes of a survey, as the surveys service decided it (docs/api.md#surveys). */
export interface SurveyPatch {
  /** Stored fields set to these values as they are (ids as ObjectIds); `name` sets `nameLower` too. */
  fields: Record<string, unknown>;
  /** One access role added to `permissions` unless the list holds it already (when the update applies). */
  addPermission?: Id;
}

/** What must still hold of the stored survey for a write to apply. */
export interface SurveyConditions {
  /** Its `__v`, as read (given, even when the survey had none): any write since makes it match nothing. */
  revision?: number | undefined;
  /** Its permission model, as read. */
  version?: SurveyVersion;
}

/**
 * Applies a PATCH of a survey of the company as one update pipeline, so concurrent PATCHes never
 * lose each other's changes: `__v` rises by one each, an added permission joins whatever the list
 * holds at that moment, and `modifiedAt` always moves forward. The state it replaces is kept in
 * the document as `previous` (see {@link sealRevisions}). The survey after it, or `null` when
 * nothing matched; a code taken in the company fails with the duplicate-key error.
 */
export function applySurveyPatch(
  surveyId: Id,
  companyId: Id,
  patch: SurveyPatch,
  write: Write,
  conditions: SurveyConditions = {},
): Promise<LeanSurvey | null> {
  const set: Document = {};
  for (const [field, value] of Object.entries(patch.fields)) {
    set[field] = literal(value);
    if (field === "name") set.nameLower = literal(lower(value as string));
  }
  if (patch.addPermission) {
    const current = { $ifNull: ["$permissions", []] };
    set.permissions = {
      $cond: [
        { $in: [literal(patch.addPermission), current] },
        current,
        { $concatArrays: [current, literal([patch.addPermission])] },
      ],
    };
  }
  Object.assign(set, newVersion(write));
  // The prefixes `search` uses, of the code and name the stage before left.
  const { code, name } = patch.fields as { code?: string; name?: string };
  const searched = code !== undefined || name !== undefined;
  return surveys().findOneAndUpdate(
    surveyWhile(surveyId, companyId, conditions),
    [
      ...KEEP_PREVIOUS,
      { $set: set },
      ...(searched ? [{ $set: { searchPrefixes: searchPrefixesUpdate(code, name) } }] : []),
    ],
    // The search fields stay in the database: no record, revision or event shows them.
    { returnDocument: "after", projection: SEARCH_FIELDS_LEFT_OUT },
  );
}

const SEARCH_FIELDS_LEFT_OUT: Readonly<Record<string, 0>> = { nameLower: 0, searchPrefixes: 0 };

/**
 * Replaces the content (`chat`) of the survey while its `__v` is still `revision`, marking it
 * pending until the chats and questions collections follow (./content-sync.ts); a new version as
 * a PATCH makes one. The survey after it, or `null` when it changed meanwhile.
 */
export const replaceSurveyContent = (
  surveyId: Id,
  companyId: Id,
  revision: number | undefined,
  content: StoredChat[],
  write: Write,
): Promise<LeanSurvey | null> =>
  surveys().findOneAndUpdate(
    { _id: surveyId, company: companyId, __v: revision },
    [...KEEP_PREVIOUS, { $set: { chat: literal(content), contentPending: true, ...newVersion(write) } }],
    { returnDocument: "after" },
  );

const surveyWhile = (surveyId: Id, companyId: Id, conditions: SurveyConditions): Filter<Document> => ({
  _id: surveyId,
  company: companyId,
  ...("revision" in conditions ? { __v: conditions.revision } : {}),
  ...(conditions.version !== undefined ? { version: conditions.version } : {}),
});

// Every client value is wrapped as a literal: in a pipeline, "$x" would name a field.
const literal = (value: unknown) => ({ $literal: value });

/** The stored state becomes `previous`, without its own `previous` or its search fields. */
export const KEEP_PREVIOUS = [
  { $set: { previous: "$$ROOT" } },
  { $unset: ["previous.previous", "previous.nameLower", "previous.searchPrefixes"] },
];

/** What every change of a survey sets: a later `modifiedAt`, `__v` one more, and who made it. */
const newVersion = (write: Write): Document => ({
  // Strictly later than before, also within one millisecond or when clocks disagree.
  modifiedAt: { $max: [{ $literal: write.at }, { $add: ["$modifiedAt", 1] }] },
  __v: { $add: [{ $ifNull: ["$__v", 0] }, 1] },
  revisionBy: { $literal: write.by },
});

/** The ids among `ids` that name surveys, as hex strings. */
export async function existingSurveyIds(ids: Id[]): Promise<Set<string>> {
  const found = await findDocs<{ _id: Id }>(Survey, { _id: { $in: ids } }, { projection: { _id: 1 } });
  return new Set(found.map((doc) => doc._id.toHexString()));
}

/**
 * How many surveys `filter` (already scoped to the company) matches: the count shared by every
 * server process through the database, as users' (lib/kernel/counts.ts, docs/api.md#counters).
 */
export const countSurveys = (
  companyId: Id,
  filter: Filter<Document>,
  read: { key: CountKey; stored?: StoredCount[] } = { key: surveyCountKey(companyId, filter) },
): Promise<number> => sharedCount(read.key, companyId, () => surveys().countDocuments(filter), read.stored);

/** Which stored count {@link countSurveys} reads for `filter`, as {@link userCountKey} for users. */
export const surveyCountKey = (companyId: Id, filter: Filter<Document>): CountKey =>
  countKey("surveys", companyId, filter);

/** After a write of a survey of the company has committed: its counts are no longer current. */
export const forgetSurveyCounters = (companyId: Id): Promise<void> => countsChanged("surveys", [companyId]);

const BACKFILL_MARKER = "surveySearchPrefixes";

/**
 * Gives `nameLower` and `searchPrefixes` to surveys stored without them (written before search
 * used them, or by another system straight into the database), once per database: a marker in
 * `meta` records that it ran, so later starts cost one read. Returns how many were filled.
 */
export async function backfillSurveySearch(): Promise<number> {
  let filled = 0;
  await oncePerDatabase(BACKFILL_MARKER, async () => {
    const missing = surveys().find({ searchPrefixes: { $exists: false } }, { projection: { code: 1, name: 1 } });
    for await (const doc of missing) {
      const code = String(doc.code ?? "");
      const name = String(doc.name ?? "");
      // Only if still missing: a PATCH in between has already set both from the newer values.
      const result = await surveys().updateOne(
        { _id: doc._id, searchPrefixes: { $exists: false } },
        { $set: { nameLower: lower(name), searchPrefixes: surveySearchPrefixes(code, name) } },
      );
      filled += result.modifiedCount;
    }
  });
  return filled;
}

// ---------------------------------------------------------------------------------------------
// Revisions

/** The survey as it was after one write, as stored. */
export interface RevisionDoc {
  _id: Id;
  survey: Id;
  company: Id;
  __v: number;
  snapshot: LeanSurvey;
  modifiedBy: Id | null;
  createdAt: Date;
}

/** The revision of a stored survey state (its bookkeeping fields left out). */
export function newRevisionDoc(state: LeanSurvey, _id: Id = newId()): RevisionDoc {
  const snapshot: Record<string, unknown> = { ...state };
  for (const field of INTERNAL_SURVEY_FIELDS) delete snapshot[field];
  return {
    _id,
    survey: state._id,
    company: state.company,
    __v: state.__v,
    snapshot: snapshot as LeanSurvey,
    modifiedBy: state.revisionBy ?? null,
    createdAt: state.modifiedAt,
  };
}

/**
 * Writes the revisions of the states a stored survey holds: its own, and `previous`, the state its
 * last write replaced. A create or PATCH calls it with the document its write returned; should the
 * process die (or the database refuse) between that write and this one, the next PATCH of the
 * survey, whose document then holds the missed state as `previous`, writes that revision, and so
 * does listing the revisions. No revision is lost unless two writes of one survey in a row fail so.
 * Upserts keyed by (survey, `__v`): a revision already there is left as it is.
 */
export async function sealRevisions(doc: LeanSurvey): Promise<void> {
  const states = [doc, doc.previous as LeanSurvey | null | undefined].filter(
    (state): state is LeanSurvey => state !== undefined && state !== null,
  );
  try {
    await driverCollection<RevisionDoc>(SurveyRevision).bulkWrite(
      states.map((state) => {
        const { _id, survey, __v, ...revision } = newRevisionDoc(state);
        return { updateOne: { filter: { survey, __v }, update: { $setOnInsert: { _id, ...revision } }, upsert: true } };
      }),
      { ordered: false },
    );
  } catch (error) {
    // Two requests sealing one revision at once: one inserts it, the other may meet its key.
    if (!isDuplicateKeyError(error)) throw error;
  }
}

export const findRevisions = (filter: Filter<Document>, options: ReadOptions): Promise<RevisionDoc[]> =>
  findDocs<RevisionDoc>(SurveyRevision, filter, options);

export const countRevisions = (filter: Filter<Document>): Promise<number> =>
  driverCollection<RevisionDoc>(SurveyRevision).countDocuments(filter);

// ---------------------------------------------------------------------------------------------
// Chats, questions and answers

const COLLECTIONS = {
  surveys: Survey,
  revisions: SurveyRevision,
  chats: SurveyChat,
  questions: Question,
  answers: Answer,
} as const;

/**
 * Inserts each document unless its `_id` is taken (an upsert that only inserts, so seeding twice
 * changes nothing); answers how many were inserted. A unique key other than `_id` that is taken
 * fails the write with the duplicate-key error, after the other documents are written.
 */
export async function insertOnce(kind: keyof typeof COLLECTIONS, docs: Document[]): Promise<number> {
  if (docs.length === 0) return 0;
  const operations: AnyBulkWriteOperation<Document>[] = docs.map(({ _id, ...doc }) => ({
    updateOne: { filter: { _id }, update: { $setOnInsert: doc }, upsert: true },
  }));
  return (await driverCollection(COLLECTIONS[kind]).bulkWrite(operations, { ordered: false })).upsertedCount;
}

/** The answers of these uuids within the company: which survey each belongs to. */
export const answersOf = (companyId: Id, uuids: Id[]): Promise<Pick<AnswerDoc, "_id" | "uuid" | "survey">[]> =>
  findDocs(Answer, { uuid: { $in: uuids }, company: companyId }, { projection: { uuid: 1, survey: 1 } });

/** Where the `$lookup`s of {@link readPopulatedSurvey} put a survey's parts: names no survey field has. */
const PARTS = { chats: "__chats", questions: "__questions", answerCounts: "__answerCounts" } as const;

interface PopulatedParts {
  [PARTS.chats]: Pick<SurveyChatDoc, "_id" | "name" | "order" | "createdAt" | "modifiedAt">[];
  [PARTS.questions]: Pick<QuestionDoc, "_id" | "chat" | "text" | "type" | "options" | "order">[];
  [PARTS.answerCounts]: { _id: Id; n: number }[];
}

/** A survey of the company with its chats, as `GET /v2/surveys/{id}?populate=true` answers it. */
interface PopulatedSurvey {
  /** `null` when the company has no such survey. */
  survey: SurveyRecord | null;
  chat: SurveyChatRecord[];
  /** A content write of the survey stopped half-way (./content-sync.ts): the chats may be behind it. */
  contentPending: boolean;
}

/**
 * The survey and its chats by `order`, each with its questions by `order` and their answer counts:
 * one `aggregate` whose `$lookup`s read the chats, the questions and the answers through their
 * indexes of `survey` (one command, where four reads cost the read worker and the database a
 * command each: docs/benchmarks.md#where-the-time-goes), shaped into records so that a read worker
 * can run it (lib/platform/startup/read-tasks.ts). The caller finishes a pending content write and
 * reads again.
 */
export async function readPopulatedSurvey({
  companyId,
  surveyId,
}: {
  companyId: Id;
  surveyId: Id;
}): Promise<PopulatedSurvey> {
  // The record leaves `contentPending` out (toSurveyRecord); it is read here to tell the caller.
  const projection = Object.fromEntries(
    Object.entries(WITHOUT_INTERNAL_FIELDS).filter(([field]) => field !== "contentPending"),
  );
  const owned = (model: { collection: { collectionName: string } }, as: string, pipeline: Document[]) => ({
    $lookup: { from: model.collection.collectionName, localField: "_id", foreignField: "survey", as, pipeline },
  });
  const live = { $match: { company: companyId, removedAt: null } };
  const [found] = await aggregateDocs<LeanSurvey & PopulatedParts>(Survey, [
    { $match: { _id: surveyId, company: companyId } },
    { $project: projection },
    owned(SurveyChat, PARTS.chats, [
      live,
      { $sort: { order: 1, _id: 1 } },
      { $project: { name: 1, order: 1, createdAt: 1, modifiedAt: 1 } },
    ]),
    owned(Question, PARTS.questions, [live, { $project: { chat: 1, text: 1, type: 1, options: 1, order: 1 } }]),
    owned(Answer, PARTS.answerCounts, [
      { $match: { company: companyId } },
      // Only the question of each answer is read.
      { $project: { _id: 0, question: 1 } },
      { $group: { _id: "$question", n: { $sum: 1 } } },
    ]),
  ]);
  if (!found) return { survey: null, chat: [], contentPending: false };
  const { [PARTS.chats]: chats, [PARTS.questions]: questions, [PARTS.answerCounts]: counts, ...doc } = found;
  const answerCounts = new Map(counts.map((count) => [count._id.toHexString(), count.n]));
  const byChat = new Map<string, PopulatedParts[typeof PARTS.questions]>();
  for (const question of questions) {
    const key = question.chat.toHexString();
    const list = byChat.get(key);
    if (list) list.push(question);
    else byChat.set(key, [question]);
  }
  const chat = chats.map((each) => ({
    _id: each._id.toHexString(),
    name: each.name,
    order: each.order,
    createdAt: each.createdAt.toISOString(),
    modifiedAt: each.modifiedAt.toISOString(),
    questions: (byChat.get(each._id.toHexString()) ?? [])
      .sort((a, b) => a.order - b.order || compareIds(a._id, b._id))
      .map((question) => ({
        _id: question._id.toHexString(),
        text: question.text,
        type: question.type as SurveyChatRecord["questions"][number]["type"],
        options: question.options ?? [],
        order: question.order,
        answerCount: answerCounts.get(question._id.toHexString()) ?? 0,
      })),
  }));
  return { survey: toSurveyRecord(doc) as SurveyRecord, chat, contentPending: doc.contentPending === true };
}

/**
 * {@link readPopulatedSurvey} as `GET /v2/surveys/{id}?populate=true` answers it: the survey with
 * its chats written as JSON where it was read (lib/kernel/json-text.ts), and its tag; `text` is
 * `null` when there is no such survey.
 */
export async function readWrittenPopulatedSurvey(
  query: Parameters<typeof readPopulatedSurvey>[0],
): Promise<WrittenRecord & { contentPending: boolean }> {
  const { survey, chat, contentPending } = await readPopulatedSurvey(query);
  if (!survey) return { text: null, tag: "", contentPending };
  const record = { ...survey, chat };
  return { text: JSON.stringify(record), tag: surveyAnswerTag(record), contentPending };
}

const compareIds = (a: Id, b: Id) => (a.toHexString() < b.toHexString() ? -1 : a.equals(b) ? 0 : 1);

/** Every chat and question of a survey, removed ones too. */
export async function allChatsAndQuestions(surveyId: Id, companyId: Id) {
  const [chats, questions] = await Promise.all([
    findDocs<SurveyChatDoc>(SurveyChat, { survey: surveyId, company: companyId }),
    findDocs<QuestionDoc>(Question, { survey: surveyId, company: companyId }),
  ]);
  return { chats, questions };
}

/** Every chat and question of a survey, removed ones too, and how many answers each question has. */
export async function allSurveyParts(surveyId: Id, companyId: Id) {
  const [parts, answerCounts] = await Promise.all([
    allChatsAndQuestions(surveyId, companyId),
    countAnswersByQuestion(surveyId, companyId),
  ]);
  return { ...parts, answerCounts };
}

const countAnswersByQuestion = async (surveyId: Id, companyId: Id): Promise<Map<string, number>> => {
  const counts = await aggregateDocs<{ _id: Id; n: number }>(Answer, [
    { $match: { survey: surveyId, company: companyId } },
    { $group: { _id: "$question", n: { $sum: 1 } } },
  ]);
  return new Map(counts.map((count) => [count._id.toHexString(), count.n]));
};

/** A chat document as stored, for the seed and the benchmark (the service writes chats through syncContent). */
export const newChatDoc = (chat: Omit<SurveyChatDoc, "modifiedAt" | "removedAt">): SurveyChatDoc => ({
  ...chat,
  modifiedAt: chat.createdAt,
  removedAt: null,
});

/** A question document as stored, for the seed and the benchmark (the service writes questions through syncContent). */
export const newQuestionDoc = (question: Omit<QuestionDoc, "modifiedAt" | "removedAt">): QuestionDoc => ({
  ...question,
  modifiedAt: question.createdAt,
  removedAt: null,
});

/**
 * Makes the chats and questions collections what the survey's stored content says: each chat and
 * question upserted by `_id` with its place, every other one of the survey marked removed (kept,
 * with its answers). Idempotent, so a write stopped half-way is finished by running it again.
 */
export async function syncContent(surveyId: Id, companyId: Id, content: StoredChat[], at: Date): Promise<void> {
  const owner = { survey: surveyId, company: companyId };
  const chatOps: AnyBulkWriteOperation<Document>[] = content.map((chat) => ({
    updateOne: {
      filter: { _id: chat._id, ...owner },
      update: {
        $set: { name: chat.name, order: chat.order, removedAt: null, modifiedAt: at },
        $setOnInsert: { createdAt: at },
      },
      upsert: true,
    },
  }));
  const questionOps: AnyBulkWriteOperation<Document>[] = content.flatMap((chat) =>
    chat.questions.map((question) => ({
      updateOne: {
        filter: { _id: question._id, ...owner },
        update: {
          $set: {
            chat: chat._id,
            text: question.text,
            type: question.type,
            options: question.options,
            order: question.order,
            removedAt: null,
            modifiedAt: at,
          },
          $setOnInsert: { createdAt: at },
        },
        upsert: true,
      },
    })),
  );
  const kept = (ids: Id[]) => ({ ...owner, _id: { $nin: ids }, removedAt: null });
  chatOps.push({
    updateMany: { filter: kept(content.map((chat) => chat._id)), update: { $set: { removedAt: at, modifiedAt: at } } },
  });
  questionOps.push({
    updateMany: {
      filter: kept(content.flatMap((chat) => chat.questions.map((question) => question._id))),
      update: { $set: { removedAt: at, modifiedAt: at } },
    },
  });
  await Promise.all([
    driverCollection(SurveyChat).bulkWrite(chatOps, { ordered: true }),
    driverCollection(Question).bulkWrite(questionOps, { ordered: true }),
  ]);
}

/** Clears `contentPending` once the collections follow the content of survey version `v`. */
export const contentSynced = async (surveyId: Id, v: number): Promise<void> => {
  await surveys().updateOne({ _id: surveyId, __v: v }, { $unset: { contentPending: "" } });
};

/** The questions a response may answer: those of the survey not removed. */
export const liveQuestions = (surveyId: Id, companyId: Id): Promise<QuestionDoc[]> =>
  findDocs<QuestionDoc>(Question, { survey: surveyId, company: companyId, removedAt: null });
