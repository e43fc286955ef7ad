import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import * as apiKeys from "@/lib/resources/api-keys/contract";
import { createApiKey, listApiKeys } from "@/lib/resources/api-keys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(apiKeys.list, ({ auth, query }) => listApiKeys(auth, query));
export const POST = handle(apiKeys.create, async ({ auth, body }) =>
  createdRecord(apiKeys.create.path, await createApiKey(auth, body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
