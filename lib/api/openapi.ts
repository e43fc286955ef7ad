/** The document operation bound to the document: what app/v2/openapi.json/route.ts exports. */
import { handle } from "@/lib/http/route";
import * as contract from "@/lib/openapi/contract";
import { openApiDocument } from "@/lib/openapi/document";

export const document = handle(contract.document, () => openApiDocument());
