import { handle, noContent, otherMethods } from "@/lib/platform/http/route";
import * as views from "@/lib/resources/views/contract";
import { deleteView, getView, updateView } from "@/lib/resources/views/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(views.readOne, ({ request, auth, params }) =>
  getView(auth, params.id, request.headers.get("admin")),
);
export const PATCH = handle(views.update, ({ request, auth, params, body }) =>
  updateView(auth, params.id, body, request.headers.get("admin")),
);
export const DELETE = handle(views.remove, ({ request, auth, params }) =>
  deleteView(auth, params.id, request.headers.get("admin")).then(noContent),
);

export const { OPTIONS, POST, PUT } = otherMethods({ GET, PATCH, DELETE });
