import { otherMethods } from "@/lib/http/route";
import * as answers from "@/lib/answers/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = answers.list;
export const POST = answers.answer;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
