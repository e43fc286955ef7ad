import { handle, otherMethods } from "@/lib/platform/http/route";
import { jobTitles } from "@/lib/resources/reference/contract";
import { getReference, updateReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(jobTitles.read, ({ auth, params }) => getReference(auth, "jobTitles", params.id));
export const PATCH = handle(jobTitles.update, ({ auth, params, body }) =>
  updateReference(auth, "jobTitles", params.id, body),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
