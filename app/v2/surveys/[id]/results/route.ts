import { otherMethods } from "@/lib/http/route";
import * as answers from "@/lib/answers/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = answers.results;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
