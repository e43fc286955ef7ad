import { handle, otherMethods, Reply } from "@/lib/platform/http/route";
import * as jobs from "@/lib/resources/jobs/contract";
import { startUserImport } from "@/lib/resources/jobs/service";
import { importUpload } from "@/lib/resources/jobs/upload";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The proxy leaves the API alone, so the upload streams (proxy.ts).
export const POST = handle(jobs.importUsers, async ({ auth, query, request }) => {
  const job = await startUserImport(auth, importUpload(request, query.dryRun));
  return new Reply(job, 202, { Location: `/v2/jobs/${job._id}` });
});

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
