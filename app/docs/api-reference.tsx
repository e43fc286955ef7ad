"use client";

import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";

// The machines are offline: no web fonts (Scalar's default loads them from its CDN), so the
// page uses the system fonts of the rest of the app.
const configuration = {
  url: "/v2/openapi.json",
  withDefaultFonts: false,
  hideDarkModeToggle: false,
  customCss: `.scalar-app, .light-mode, .dark-mode {
  --scalar-font: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}`,
  metaData: { title: "Users & Surveys API reference" },
};

export function ApiReference() {
  return <ApiReferenceReact configuration={configuration} />;
}
