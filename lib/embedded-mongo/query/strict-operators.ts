/**
 * Operators where mingo answers what MongoDB refuses or types otherwise: each is MongoDB's own
 * code and message, or its BSON type, on top of mingo's operator.
 */
import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import type { Iterator } from "mingo/lazy";
import type { Options } from "mingo/types";
import { setNumberType } from "../storage/bson-values";
import { isPlainObject } from "../storage/keys";
import { withoutComments } from "./filter";
import { LocationError } from "./pipeline-check";
import { typeName } from "./type-operators";

type PipelineOp = (coll: Iterator, expr: unknown, options: Options) => Iterator;
type ExpressionOp = (obj: unknown, expr: unknown, options: Options) => unknown;

/** MongoDB's name of a value's type, `missing` for none, as its messages give it. */
const typeOfValue = (value: unknown) => (value === undefined ? "missing" : typeName({ value }, "value"));

/** `$size` of anything but an array is 17124, a missing or null value included (mingo answers null). */
export const strictExpressions: Record<string, ExpressionOp> = {
  $size: (obj, expr, options) => {
    // An array is the operator's list of arguments, of which $size takes one.
    if (Array.isArray(expr) && expr.length !== 1)
      throw new LocationError(16020, `Expression $size takes exactly 1 arguments. ${expr.length} were passed in.`);
    const value = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
    if (!Array.isArray(value))
      throw new LocationError(
        17124,
        `The argument to $size must be an array. Type of the argument was: ${typeOfValue(value)}`,
      );
    return value.length;
  },
};

/**
 * `$replaceRoot` and `$replaceWith` whose new root is not a document (40228, where mingo says
 * code 2); `$unwind`'s `includeArrayIndex` a long, as MongoDB answers it; a later `$match` that
 * ignores its `$comment`s, as the first one (compiled as a `find`'s filter) does.
 */
export function strictStages(pipeline: Record<string, PipelineOp>): Record<string, PipelineOp> {
  const replaceRoot = (coll: Iterator, newRoot: unknown, options: Options) =>
    coll.map((doc: unknown) => {
      const root = evalExpr(doc, newRoot, options);
      if (!isPlainObject(root))
        throw new LocationError(
          40228,
          `'newRoot' expression must evaluate to an object, but resulting value was: ${
            root === undefined ? "MISSING" : JSON.stringify(root)
          }. Type of resulting value: '${typeOfValue(root)}'.`,
        );
      return root;
    });
  return {
    $replaceRoot: (coll, expr, options) =>
      isPlainObject(expr) ? replaceRoot(coll, expr.newRoot, options) : pipeline.$replaceRoot(coll, expr, options),
    $replaceWith: (coll, expr, options) => replaceRoot(coll, expr, options),
    $unwind: (coll, expr, options) => {
      const index = isPlainObject(expr) && typeof expr.includeArrayIndex === "string" ? expr.includeArrayIndex : "";
      const out = pipeline.$unwind(coll, expr, options);
      if (!index || index.includes(".")) return out;
      return out.map((doc: Document) => {
        if (typeof doc[index] === "number") setNumberType(doc, index, "long");
        return doc;
      });
    },
    $match: (coll, expr, options) => pipeline.$match(coll, withoutComments(expr), options),
  };
}
