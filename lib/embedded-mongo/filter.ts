/** A query filter compiled for mingo, with MongoDB's own refusal for an operator it does not know. */
import type { Document } from "bson";
import type { Query } from "mingo";
import type { Options } from "mingo/types";
import { makeQuery } from "./collated-query";
import { MongoCommandError } from "./errors";
import { rewriteTypeOperators } from "./type-operators";

export function compileFilter(filter: Document, options?: Partial<Options>): Query {
  try {
    return makeQuery(rewriteTypeOperators(filter), options);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // MongoDB's wording for an operator it does not know inside a field's condition.
    throw new MongoCommandError("BadValue", message.replace(/^unknown query operator (\$\S+)$/, "unknown operator: $1"));
  }
}
