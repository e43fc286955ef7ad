import { handle, noContent, otherMethods } from "@/lib/platform/http/route";
import * as apiKeys from "@/lib/resources/api-keys/contract";
import { revokeApiKey } from "@/lib/resources/api-keys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = handle(apiKeys.revoke, ({ auth, params }) => revokeApiKey(auth, params.id).then(noContent));

export const { OPTIONS, GET, HEAD, POST, PUT, PATCH } = otherMethods({ DELETE });
