import * as openapi from "@/lib/base/schemas/openapi";
import { handle, otherMethods } from "@/lib/platform/http/route";
import { openApiDocument } from "@/lib/platform/openapi/document";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(openapi.document, () => openApiDocument());

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
