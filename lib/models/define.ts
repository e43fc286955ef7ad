import mongoose, { type Model, type Schema } from "mongoose";

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
