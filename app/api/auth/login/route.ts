import { handle, otherMethods } from "@/lib/platform/http/route";
import { signIn } from "@/lib/platform/http/sign-in";
import * as auth from "@/lib/resources/auth/contract";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(auth.login, ({ request, body }) => signIn(request, body));

export const { GET, HEAD, OPTIONS, PUT, PATCH, DELETE } = otherMethods({ POST });
