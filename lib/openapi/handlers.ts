/** The document operation bound to the document: what app/v2/openapi.json/route.ts exports. */
import { handle } from "@/lib/http/route";
import * as contract from "./contract";
import { openApiDocument } from "./document";

export const document = handle(contract.document, () => openApiDocument());
