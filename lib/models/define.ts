import mongoose, { type Model, type Schema } from "mongoose";
import type * as mongodb from "mongodb";
import type { Document } from "mongodb";

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
export const driverCollection = <T extends Document>(model: { collection: mongoose.Collection }): mongodb.Collection<T> =>
  model.collection as unknown as mongodb.Collection<T>;
