import { currentSession } from "@/lib/kernel/db/transaction";
import type * as mongodb from "mongodb";
import type { Document } from "mongodb";
import mongoose, { type ClientSession, type Model, type Schema } from "mongoose";

/**
 * Registers a model once per process: Next's dev reloads re-evaluate model modules, and Mongoose
 * refuses to compile one name twice.
 */
export function defineModel<S extends Schema>(name: string, schema: S) {
  type Doc = mongoose.InferSchemaType<S>;
  return (mongoose.models[name] as Model<Doc> | undefined) ?? mongoose.model<Doc>(name, schema);
}

/**
 * Options every model shares: indexes are built by `ensureIndexes()` at service start, not by
 * Mongoose in the background; empty objects (`extensions: {}`) are kept; no `__v` unless a model
 * asks for it.
 */
export const schemaOptions = { autoIndex: false, minimize: false, versionKey: false, strict: "throw" } as const;

export const { ObjectId } = mongoose.Schema.Types;

/**
 * The model's collection as the driver sees it, its documents typed as the model's lean type: the
 * one place where a repository's reads and writes meet their stored shape (Mongoose carries its own
 * copy of the driver, whose types TypeScript cannot relate to the project's).
 */
export const driverCollection = <T extends Document>(model: {
  collection: mongoose.Collection;
}): mongodb.Collection<T> => {
  const collection = model.collection as unknown as mongodb.Collection<T>;
  const session = currentSession();
  return session ? inSession(collection, session) : collection;
};

/** Where each driver method the repositories call takes its options (the argument after its last). */
const OPTIONS_AT: Readonly<Record<string, number>> = {
  find: 1,
  findOne: 1,
  aggregate: 1,
  countDocuments: 1,
  distinct: 2,
  insertOne: 1,
  insertMany: 1,
  bulkWrite: 1,
  updateOne: 2,
  updateMany: 2,
  replaceOne: 2,
  deleteOne: 1,
  deleteMany: 1,
  findOneAndUpdate: 2,
  findOneAndReplace: 2,
  findOneAndDelete: 1,
};

/**
 * The collection with every call joining `session`: the driver, unlike Mongoose's own calls, does
 * not join the transaction `inTransaction` runs by itself, and a write outside it would wait for
 * the very transaction it belongs to (docs/architecture.md#events).
 */
function inSession<T extends Document>(
  collection: mongodb.Collection<T>,
  session: ClientSession,
): mongodb.Collection<T> {
  return new Proxy(collection, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      const at = typeof property === "string" && typeof value === "function" ? OPTIONS_AT[property] : undefined;
      if (at === undefined) return value;
      return (...args: unknown[]) => {
        const options = args.slice(0, at).concat(Array.from({ length: Math.max(0, at - args.length) }));
        return (value as (...all: unknown[]) => unknown).apply(target, [
          ...options,
          { ...(args[at] as object | undefined), session },
        ]);
      };
    },
  });
}
