import { ApiError } from "@/lib/client/api";
import { plainDetail } from "@/lib/client/form-errors";

const titles: Record<string, string> = {
  network: "The server could not be reached",
  not_found: "Not found",
  forbidden: "Not allowed",
  admin_required: "Not allowed",
  unauthorized: "Signed out",
  rate_limited: "Too many requests",
  conflict: "Already exists",
  internal: "Something went wrong on the server",
};

/**
 * An error as a person reads it: what happened, which fields (unless the form shows them on the
 * fields themselves), and the request id to quote to support.
 */
export function ErrorMessage({
  error,
  title,
  hideDetails = false,
}: {
  error: unknown;
  title?: string;
  hideDetails?: boolean;
}) {
  const apiError = error instanceof ApiError ? error : undefined;
  const heading = title ?? (apiError && titles[apiError.code]) ?? "The request failed";
  const message = error instanceof Error ? error.message : "An unexpected error happened.";
  return (
    <div role="alert" className="rounded-md border border-rose-200 bg-rose-50 p-4 text-sm text-rose-900">
      <p className="font-semibold">{heading}</p>
      <p className="mt-1">{message}</p>
      {apiError && !hideDetails && apiError.details.length > 0 && (
        <ul className="mt-2 list-disc pl-5">
          {apiError.details.map((detail) => (
            <li key={`${detail.path}:${detail.message}`}>
              {detail.path && <span className="font-medium">{detail.path}: </span>}
              {plainDetail(detail.message)}
            </li>
          ))}
        </ul>
      )}
      {apiError?.requestId && (
        <p className="mt-2 text-xs text-rose-800">
          Request id: <code className="font-mono select-all">{apiError.requestId}</code>
        </p>
      )}
    </div>
  );
}
