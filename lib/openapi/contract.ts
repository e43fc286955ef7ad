/** The operation serving the OpenAPI document itself; no token needed. */
import { publicOperation } from "@/lib/schemas/operation";
import { OpenApiDocumentSchema } from "./document-schema";

export const document = publicOperation({
  method: "get",
  path: "/v2/openapi.json",
  doc: {
    tag: "Documentation",
    summary: "This OpenAPI document",
    description: "The OpenAPI 3.1 document of this API, built from the schemas the routes validate with. No token needed; the reference page is at `/docs`.",
    status: 200,
    response: OpenApiDocumentSchema,
  },
});
