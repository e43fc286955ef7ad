/**
 * An import's upload as its HTTP request carries it (docs/api.md#import): the media type and
 * declared size from its headers, the file as its body streams in. The route reads it here and
 * hands it to the service (./service.ts), which knows no HTTP.
 */
import { ServiceError } from "@/lib/kernel/errors";
import { IMPORT_MEDIA_TYPES, NDJSON_TYPE } from "@/lib/resources/users/import-file";
import type { ImportUpload } from "./service";

/** The upload of an import request, or `415` for a media type an import does not read. */
export function importUpload(request: Request, dryRun: boolean): ImportUpload {
  const mediaType = importMediaType(request.headers.get("content-type"));
  const length = request.headers.get("content-length");
  return {
    mediaType,
    declaredBytes: length !== null && /^\d+$/.test(length) ? Number(length) : 0,
    body: request.body as unknown as AsyncIterable<Uint8Array> | null,
    dryRun,
  };
}

/** The media type of an import's body, or `415`. */
function importMediaType(header: string | null): string {
  const type = (header ?? "").split(";")[0].trim().toLowerCase();
  if (!(IMPORT_MEDIA_TYPES as readonly string[]).includes(type)) {
    throw new ServiceError(
      "unsupported_media_type",
      "The file must be CSV (Content-Type: text/csv) or NDJSON (Content-Type: application/x-ndjson).",
    );
  }
  return type === "application/ndjson" ? NDJSON_TYPE : type;
}
