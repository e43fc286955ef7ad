import { handle, otherMethods, Reply } from "@/lib/http/route";
import * as jobs from "@/lib/jobs/contract";
import { startUserImport } from "@/lib/jobs/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(jobs.importUsers, async ({ auth, query, request }) => {
  const job = await startUserImport(auth, request, query.dryRun);
  return new Reply(job, 202, { Location: `/v2/jobs/${job._id}` });
});

export const { OPTIONS, GET, PUT, PATCH, DELETE } = otherMethods({ POST });
