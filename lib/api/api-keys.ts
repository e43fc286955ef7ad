/** The API key operations bound to their service: what the route files under app/v2/api-keys export. */
import { created, handle, Reply } from "@/lib/http/route";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/api-keys/service";
import * as apiKeys from "@/lib/api-keys/contract";

export const list = handle(apiKeys.list, ({ auth, query }) => listApiKeys(auth, query));

export const create = handle(apiKeys.create, async ({ auth, body }) => {
  const record = await createApiKey(auth, body);
  return created(record, `${apiKeys.create.path}/${record._id}`);
});

export const revoke = handle(apiKeys.revoke, async ({ auth, params }) => {
  await revokeApiKey(auth, params.id);
  return new Reply(null, 204);
});
