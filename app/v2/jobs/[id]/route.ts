import { handle, otherMethods } from "@/lib/platform/http/route";
import * as jobs from "@/lib/resources/jobs/contract";
import { getJob } from "@/lib/resources/jobs/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(jobs.read, ({ auth, params }) => getJob(auth, params.id));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
