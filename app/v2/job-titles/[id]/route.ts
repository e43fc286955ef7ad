import { handle, otherMethods } from "@/lib/http/route";
import { jobTitles } from "@/lib/reference/contract";
import { getReference, updateReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(jobTitles.read, ({ auth, params }) => getReference(auth, "jobTitles", params.id));
export const PATCH = handle(jobTitles.update, ({ auth, params, body }) => updateReference(auth, "jobTitles", params.id, body));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
