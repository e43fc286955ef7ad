import { otherMethods, route } from "@/lib/http/route";
import { getMe } from "@/lib/services/users";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({}, ({ auth }) => getMe(auth));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
