import { handle, otherMethods, Reply, withAnswer } from "@/lib/platform/http/route";
import * as jobs from "@/lib/resources/jobs/contract";
import { startUserImport } from "@/lib/resources/jobs/service";
import { importUpload } from "@/lib/resources/jobs/upload";
import { requestSecurityHeaders } from "@/proxy";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The proxy leaves this path alone so that the upload streams (proxy.ts): its headers are set here.
export const POST = withAnswer(
  handle(jobs.importUsers, async ({ auth, query, request }) => {
    const job = await startUserImport(auth, importUpload(request, query.dryRun));
    return new Reply(job, 202, { Location: `/v2/jobs/${job._id}` });
  }),
  (request, response) => {
    for (const [name, value] of Object.entries(requestSecurityHeaders(request))) response.headers.set(name, value);
  },
);

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
