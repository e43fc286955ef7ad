/**
 * The operation serving the OpenAPI document itself (no token needed) and what a client relies on
 * in its answer. Apart from lib/platform/openapi, which builds the document from every contract, this one
 * among them.
 */
import { z } from "zod";
import { type ComponentNames, publicOperation } from "./operation";

/** The answer of `GET /v2/openapi.json`, as far as a client relies on it. */
export const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}),
});

export const document = publicOperation({
  method: "get",
  path: "/v2/openapi.json",
  doc: {
    tag: "Documentation",
    summary: "This OpenAPI document",
    description:
      "The OpenAPI 3.1 document of this API, built from the schemas the routes validate with. No token needed; the reference page is at `/docs`.",
    status: 200,
    response: OpenApiDocumentSchema,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { answers: { OpenApiDocument: OpenApiDocumentSchema } };
