import { handle, otherMethods } from "@/lib/http/route";
import * as openapi from "@/lib/schemas/openapi";
import { openApiDocument } from "@/lib/openapi/document";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(openapi.document, () => openApiDocument());

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
