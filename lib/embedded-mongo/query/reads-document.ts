/** Whether an expression reads the current document, shared by a command's `let` and `$setWindowFields`. */
import { isPlainObject } from "../storage/keys";

/**
 * Whether an expression names a field of the current document (`$a`, `$$ROOT`, `$$CURRENT`), at
 * any depth outside `$literal`. Any object without a BSON type is an expression here, whatever its
 * prototype (an object made with `Object.create(null)` too), so no expression escapes the check.
 */
export function readsDocument(expression: unknown): boolean {
  if (typeof expression === "string") {
    if (!expression.startsWith("$")) return false;
    if (!expression.startsWith("$$")) return true;
    const variable = expression.slice(2).split(".")[0];
    return variable === "ROOT" || variable === "CURRENT";
  }
  if (Array.isArray(expression)) return expression.some(readsDocument);
  if (isPlainObject(expression))
    return Object.entries(expression).some(([key, value]) => key !== "$literal" && readsDocument(value));
  return false;
}
