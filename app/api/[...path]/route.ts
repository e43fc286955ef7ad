import { noSuchPath } from "@/lib/platform/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// A path no route of the API serves: 404 in the error shape (lib/platform/http/methods.ts).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = noSuchPath();
