import { handle, noContent, otherMethods } from "@/lib/http/route";
import * as apiKeys from "@/lib/api-keys/contract";
import { revokeApiKey } from "@/lib/api-keys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = handle(apiKeys.revoke, ({ auth, params }) => revokeApiKey(auth, params.id).then(noContent));

export const { OPTIONS, GET, HEAD, POST, PUT, PATCH } = otherMethods({ DELETE });
