import { exportResponse } from "@/lib/kernel/export/stream";
import { handle, otherMethods } from "@/lib/platform/http/route";
import * as users from "@/lib/resources/users/contract";
import { exportUsers } from "@/lib/resources/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.exportUsers, async ({ auth, query, notes, requestId, request }) =>
  exportResponse({
    ...(await exportUsers(auth, query, notes)),
    format: query.format,
    requestId,
    signal: request.signal,
  }),
);

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
