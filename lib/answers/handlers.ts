/** The answers operations bound to their services: what the route files under app/v2/surveys/[id] export. */
import { created, handle, Reply } from "@/lib/http/route";
import * as answers from "./contract";
import { surveyResults } from "./results";
import { exportAnswers, listAnswers, recordResponse } from "./service";

export const answer = handle(answers.answer, async ({ auth, params, body }) => {
  const response = await recordResponse(auth, params.id, body);
  return created(response, `/v2/surveys/${params.id}/answers`);
});

export const list = handle(answers.list, async ({ auth, params, query, request }) => {
  const page = await listAnswers(auth, params.id, query, request.headers.get("admin"));
  if (!page.data.next) return page;
  const next = new URL(request.url);
  next.searchParams.set("cursor", page.data.next);
  return new Reply(page, 200, { Link: `<${next.pathname}${next.search}>; rel="next"` });
});

export const exportCsv = handle(answers.exportCsv, ({ auth, params, query, request, requestId }) => exportAnswers(auth, params.id, query, request.headers.get("admin"), requestId));

export const results = handle(answers.results, ({ auth, params, query, request }) => surveyResults(auth, params.id, query, request.headers.get("admin")));
