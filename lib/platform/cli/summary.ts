/** What `npm start` prints: the build's elapsed time, and the summary once it serves. */

/** `45s`, `2m 05s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes === 0 ? `${seconds}s` : `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/** A MongoDB URI with its password (in the credentials or any `...password=` option) masked. */
export function maskUri(uri: string): string {
  return uri
    .replace(/^(mongodb(?:\+srv)?:\/\/[^:@/]*):[^@/]*@/, "$1:****@")
    .replace(/([?&][^=&]*password=)[^&]*/gi, "$1****");
}

export interface ServingSummary {
  /** Where this machine's server listens. */
  url: string;
  /** PUBLIC_URL: where people and e-mail links reach the product (docs/deployment.md#public_url). */
  publicUrl: string;
  /** Set when the server uses MONGODB_URI. */
  mongodbUri?: string;
  /** The embedded database's directory, when MONGODB_URI is unset. */
  embeddedDir?: string;
  adminEmail: string;
  /** Only on the start that created the first admin without ADMIN_PASSWORD. */
  generatedPassword?: string;
}

/** The lines printed once the server answers. */
export function servingSummary(summary: ServingSummary): string[] {
  const database = summary.mongodbUri
    ? `MongoDB at ${maskUri(summary.mongodbUri)}`
    : `embedded, in ${summary.embeddedDir}`;
  const lines = [
    "",
    `  Serving     ${summary.publicUrl}`,
    ...(summary.publicUrl !== summary.url
      ? [`  Listening   ${summary.url}   (PUBLIC_URL is where people and e-mail links reach it)`]
      : []),
    `  Database    ${database}`,
    `  Admin       ${summary.adminEmail}`,
  ];
  if (summary.generatedPassword) {
    lines.push(
      `  Password    ${summary.generatedPassword}   (generated for the first admin; shown only now, write it down)`,
    );
  }
  lines.push("", "  Stop with Ctrl+C.", "");
  return lines;
}
