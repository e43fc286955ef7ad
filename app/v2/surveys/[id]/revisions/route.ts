import { handle, otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/surveys/contract";
import { listRevisions } from "@/lib/surveys/revisions";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.revisions, ({ auth, params, query }) => listRevisions(auth, params.id, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
