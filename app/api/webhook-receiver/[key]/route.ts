import { readRawBody } from "@/lib/platform/http/body";
import { noContent, otherMethods, publicRoute } from "@/lib/platform/http/route";
import { RECEIVER_KEY, receive } from "@/lib/resources/webhooks/receiver";
import { z } from "zod";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The built-in test receiver (docs/api.md#test-receiver): keeps what a webhook POSTs to it. */
export const POST = publicRoute(
  { params: z.object({ key: z.string().regex(RECEIVER_KEY, { error: "is not a receiver's key" }) }) },
  async ({ params, request }) => {
    await receive(params.key, request.headers, (maxBytes) => readRawBody(request, maxBytes));
    return noContent();
  },
);

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
