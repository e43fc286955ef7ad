"use client";

import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";

// Nothing leaves the machine (it may be offline): no web fonts (Scalar's default loads them from
// its CDN; the page uses the app's system fonts), no AI agent and no developer toolbar (both
// call Scalar's servers).
const configuration = {
  url: "/v2/openapi.json",
  withDefaultFonts: false,
  agent: { disabled: true },
  showDeveloperTools: "never" as const,
  // Fields in the order of the schemas (required ones first), not alphabetical.
  orderSchemaPropertiesBy: "preserve" as const,
  customCss: `.scalar-app, .light-mode, .dark-mode {
  --scalar-font: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}`,
};

export function ApiReference() {
  return <ApiReferenceReact configuration={configuration} />;
}
