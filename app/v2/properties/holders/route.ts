import { handle, otherMethods } from "@/lib/platform/http/route";
import { properties } from "@/lib/resources/reference/contract";
import { countReferenceHolders } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(properties.holders, ({ auth, query }) => countReferenceHolders(auth, "properties", query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
