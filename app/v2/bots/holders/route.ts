import { handle, otherMethods } from "@/lib/platform/http/route";
import { bots } from "@/lib/resources/reference/contract";
import { countReferenceHolders } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(bots.holders, ({ auth, query }) => countReferenceHolders(auth, "bots", query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
