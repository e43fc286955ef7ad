/**
 * The OpenAPI check of the route tests' client (lib/http/testing `call`): every answer a test
 * receives on a documented path must be what the document says. Paths outside `/v2` that the
 * document leaves out (the admin pages' cookie routes) are not checked.
 */
import { openApiDocument } from "./document";
import { type Answer, AnswerValidator } from "./validate";

let validator: AnswerValidator | undefined;

export function checkAnswer(answer: Answer): void {
  validator ??= new AnswerValidator(openApiDocument());
  const pathname = new URL(answer.url, "http://localhost").pathname;
  if (!pathname.startsWith("/v2/") && !validator.template(pathname)) return;
  const problems = validator.problems(answer);
  if (problems.length > 0) {
    throw new Error(`The answer departs from the OpenAPI document (lib/openapi):\n${problems.join("\n")}\nbody: ${answer.body.slice(0, 2000)}`);
  }
}
