import { handle, otherMethods } from "@/lib/platform/http/route";
import * as surveys from "@/lib/resources/surveys/contract";
import { listRevisions } from "@/lib/resources/surveys/revisions";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.revisions, ({ auth, params, query }) => listRevisions(auth, params.id, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
