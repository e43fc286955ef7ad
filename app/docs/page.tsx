import type { Metadata } from "next";
import { ApiReference } from "./api-reference";

export const metadata: Metadata = {
  title: "API reference",
  description: "Reference of the /v2 HTTP API, rendered from its OpenAPI document",
};

/** The API reference, rendered in the browser from `GET /v2/openapi.json`. */
export default function DocsPage() {
  return <ApiReference />;
}
