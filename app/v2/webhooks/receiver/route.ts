import { handle, noContent, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { clearReceiver, readReceiver } from "@/lib/resources/webhooks/receiver";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(webhooks.receiver, ({ auth }) => readReceiver(auth));
export const DELETE = handle(webhooks.clearReceiver, async ({ auth }) => {
  await clearReceiver(auth);
  return noContent();
});

export const { OPTIONS, POST, PUT, PATCH } = otherMethods({ GET, DELETE });
