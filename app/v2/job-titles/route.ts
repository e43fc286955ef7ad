import { createdRecord, handle, otherMethods } from "@/lib/http/route";
import { jobTitles } from "@/lib/reference/contract";
import { createReference, listReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(jobTitles.list, ({ auth, query }) => listReference(auth, "jobTitles", query));
export const POST = handle(jobTitles.create, async ({ auth, body }) => createdRecord(jobTitles.create.path, await createReference(auth, "jobTitles", body)));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
