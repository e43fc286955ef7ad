/**
 * The OpenAPI check of the route tests' client (lib/tools/testing/http.ts `call`): every answer of a
 * documented route handler must be what the document says for that handler's path, method and
 * status. A handler a test makes up on the spot (not exported by a route file) is not checked.
 */
import { operationOf } from "@/lib/platform/http/binding";
import { openApiDocument } from "./document";
import { type Answer, AnswerValidator } from "./validate";

let validator: AnswerValidator | undefined;

export function checkAnswer(handler: unknown, answer: Answer): void {
  const operation = operationOf(handler);
  if (!operation) return;
  validator ??= new AnswerValidator(openApiDocument());
  const problems = validator.problems({ ...answer, method: operation.method }, operation.path);
  if (problems.length > 0) {
    throw new Error(
      `The answer departs from the OpenAPI document (lib/platform/openapi):\n${problems.join("\n")}\nbody: ${answer.body.slice(0, 2000)}`,
    );
  }
}
