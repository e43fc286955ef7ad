import { otherMethods, publicRoute } from "@/lib/http/route";
import { openApiDocument } from "@/lib/openapi/document";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 document of this API; no token needed. */
export const GET = publicRoute({}, () => openApiDocument());

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
