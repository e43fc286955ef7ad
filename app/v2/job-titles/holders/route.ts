import { handle, otherMethods } from "@/lib/http/route";
import { jobTitles } from "@/lib/reference/contract";
import { countReferenceHolders } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(jobTitles.holders, ({ auth, query }) => countReferenceHolders(auth, "jobTitles", query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
