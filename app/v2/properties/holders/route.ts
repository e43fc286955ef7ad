import { handle, otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/reference/contract";
import { countReferenceHolders } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(properties.holders, ({ auth, query }) => countReferenceHolders(auth, "properties", query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
