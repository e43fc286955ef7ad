import { handle, otherMethods } from "@/lib/http/route";
import { bots } from "@/lib/reference/contract";
import { countReferenceHolders } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(bots.holders, ({ auth, query }) => countReferenceHolders(auth, "bots", query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
