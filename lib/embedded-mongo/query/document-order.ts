/**
 * Query operators comparing documents as MongoDB does: field by field in order, in BSON order
 * (`compareValues`, the comparison of sorts and indexes), so `{a: {y: 2, x: 1}}` does not equal
 * `{a: {x: 1, y: 2}}`. mingo's own operators compare documents without regard to the order of
 * their fields, so a filter's conditions whose value is a document (or an array holding one) are
 * renamed to these before compiling (`rewriteTypeOperators`): equality (also implicit, and against
 * an array's elements), `$ne`, `$in`, `$nin`, and `$gt`/`$gte`/`$lt`/`$lte` against a document or an
 * array. Conditions on other values stay mingo's, so the common filters pay nothing.
 */
import type { Document } from "bson";
import { OpType } from "mingo/core";
import type { Options } from "mingo/types";
import { compareValues, isPlainObject, ownField, type StringOrder } from "../storage/keys";

type Predicate = (doc: unknown) => boolean;
type QueryOperator = (selector: string, value: unknown, options: unknown) => Predicate;

/** Whether comparing a value depends on the order of fields: a document, or an array holding one. */
export function comparedInOrder(value: unknown): boolean {
  if (isPlainObject(value)) return true;
  return Array.isArray(value) && value.some(comparedInOrder);
}

/**
 * The values a dotted path reaches, as MongoDB's matcher walks it: through the elements of an
 * array (also by position for a numeric part); an array at the end is kept whole (the operators
 * try it and its elements).
 */
function reached(value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    out.push(value);
    return;
  }
  const part = parts[i];
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part) && Number(part) < value.length) reached(value[Number(part)], parts, i + 1, out);
    for (const el of value)
      if (isPlainObject(el) && Object.hasOwn(el, part)) reached(ownField(el, part), parts, i + 1, out);
    return;
  }
  if (isPlainObject(value) && Object.hasOwn(value, part)) reached(value[part], parts, i + 1, out);
}

/** The operator matching where `op` does not: `$ne` of an `$eq`, `$nin` of an `$in`. */
export const negated =
  (op: QueryOperator): QueryOperator =>
  (selector, value, options) => {
    const predicate = op(selector, value, options);
    return (doc) => !predicate(doc);
  };

/** Whether a value the path reaches, or an element of such an array, passes the test. */
export function anyReached(parts: string[], test: (value: unknown) => boolean): Predicate {
  return (doc) => {
    const values: unknown[] = [];
    reached(doc, parts, 0, values);
    return values.some((v) => test(v) || (Array.isArray(v) && v.some(test)));
  };
}

/**
 * The operators, comparing strings with `strings` (a collation's comparator) when given. Each has
 * a twin named `…Element` for the conditions of an `$elemMatch` on the elements' own values
 * (`{$elemMatch: {$eq: {x: 1}}}`), which MongoDB tests against each element alone: an element
 * that is itself an array is not searched.
 */
export function orderedOperators(strings?: StringOrder): Record<string, QueryOperator> {
  const make = (reach: (parts: string[], test: (value: unknown) => boolean) => Predicate, suffix: string) => {
    const equal = (value: unknown) => (v: unknown) => compareValues(v, value, strings) === 0;
    const $orderedEq: QueryOperator = (selector, value) => reach(selector.split("."), equal(value));
    /** `$in`: the documents compared here, the other values by the context's own `$in`. */
    const $orderedIn: QueryOperator = (selector, list, options) => {
      const values = Array.isArray(list) ? list : [];
      const ordered = values.filter(comparedInOrder).map(equal);
      const others = values.filter((v) => !comparedInOrder(v));
      const plainIn = (options as Options).context.getOperator(OpType.QUERY, "$in") as QueryOperator | null;
      const byOthers = others.length && plainIn ? plainIn(selector, others, options) : () => false;
      const byOrdered = reach(selector.split("."), (v) => ordered.some((test) => test(v)));
      return (doc) => byOthers(doc) || byOrdered(doc);
    };
    /** A range against a document or an array: only values of that same type compare (MongoDB's type bracketing). */
    const range =
      (test: (order: number) => boolean): QueryOperator =>
      (selector, bound) => {
        const sameType = Array.isArray(bound) ? Array.isArray : isPlainObject;
        return reach(selector.split("."), (v) => sameType(v) && test(compareValues(v, bound, strings)));
      };
    const ops: Record<string, QueryOperator> = {
      $orderedEq,
      $orderedNe: negated($orderedEq),
      $orderedIn,
      $orderedNin: negated($orderedIn),
      $orderedGt: range((o) => o > 0),
      $orderedGte: range((o) => o >= 0),
      $orderedLt: range((o) => o < 0),
      $orderedLte: range((o) => o <= 0),
    };
    return Object.fromEntries(Object.entries(ops).map(([name, op]) => [name + suffix, op]));
  };
  return { ...make(anyReached, ""), ...make(elementAlone, "Element") };
}

/** The value itself at a one-part path (mingo's `$elemMatch` tests each element as `{field: element}`). */
export function elementAlone(parts: string[], test: (value: unknown) => boolean): Predicate {
  return (doc) => {
    const values: unknown[] = [];
    reached(doc, parts, 0, values);
    return values.some(test);
  };
}

const RENAMED: Record<string, string> = {
  $eq: "$orderedEq",
  $ne: "$orderedNe",
  $in: "$orderedIn",
  $nin: "$orderedNin",
  $gt: "$orderedGt",
  $gte: "$orderedGte",
  $lt: "$orderedLt",
  $lte: "$orderedLte",
};

const isRange = (op: string) => op === "$gt" || op === "$gte" || op === "$lt" || op === "$lte";

/**
 * The name an operator of a condition takes when its operand compares documents (undefined:
 * kept); `element`: in an `$elemMatch` on the elements' own values.
 */
export function orderedName(op: string, value: unknown, element = false): string | undefined {
  if (!Object.hasOwn(RENAMED, op)) return undefined;
  const name = element ? `${RENAMED[op]}Element` : RENAMED[op];
  if (op === "$in" || op === "$nin") return Array.isArray(value) && value.some(comparedInOrder) ? name : undefined;
  if (isRange(op)) return isPlainObject(value) || Array.isArray(value) ? name : undefined;
  return comparedInOrder(value) ? name : undefined;
}

/** Whether a filter holds a condition {@link orderedName} renames, or an implicit equality with such a value. */
export function needsOrder(filter: Document): boolean {
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" || key === "$or" || key === "$nor") {
      if (Array.isArray(cond) && cond.some((f) => isPlainObject(f) && needsOrder(f))) return true;
    } else if (!key.startsWith("$") && conditionNeedsOrder(cond)) return true;
  }
  return false;
}

function conditionNeedsOrder(cond: unknown): boolean {
  if (Array.isArray(cond)) return cond.some(comparedInOrder);
  if (!isPlainObject(cond)) return false;
  const keys = Object.keys(cond);
  if (!keys.some((k) => k.startsWith("$"))) return keys.length > 0;
  for (const op of keys) {
    const value = cond[op];
    if (orderedName(op, value)) return true;
    if (op === "$not" && conditionNeedsOrder(value)) return true;
    if (op === "$elemMatch" && isPlainObject(value)) {
      if (isOperatorCondition(value) ? conditionNeedsOrder(value) : needsOrder(value)) return true;
    }
  }
  return false;
}

/** An `$elemMatch` on the elements' own values (`{$gt: 1}`) rather than on their fields. */
export const isOperatorCondition = (value: Document): boolean =>
  Object.keys(value).every((k) => k.startsWith("$") && !["$and", "$or", "$nor"].includes(k));
