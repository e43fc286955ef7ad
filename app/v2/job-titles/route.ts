import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import { jobTitles } from "@/lib/resources/reference/contract";
import { createReference, listReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(jobTitles.list, ({ auth, query }) => listReference(auth, "jobTitles", query));
export const POST = handle(jobTitles.create, async ({ auth, body }) =>
  createdRecord(jobTitles.create.path, await createReference(auth, "jobTitles", body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
