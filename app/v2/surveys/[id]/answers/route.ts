import { created, handle, otherMethods } from "@/lib/platform/http/route";
import * as answers from "@/lib/resources/answers/contract";
import { listAnswers, recordResponse } from "@/lib/resources/answers/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(answers.list, ({ auth, params, query, request, notes }) =>
  listAnswers(auth, params.id, query, request.headers.get("admin"), notes),
);
export const POST = handle(answers.answer, async ({ auth, params, body }) =>
  created(await recordResponse(auth, params.id, body), `/v2/surveys/${params.id}/answers`),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
