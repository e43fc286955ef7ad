import { handle, otherMethods } from "@/lib/platform/http/route";
import * as company from "@/lib/resources/companies/contract";
import { getCompanySettings, updateCompanySettings } from "@/lib/resources/companies/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(company.read, ({ auth }) => getCompanySettings(auth));
export const PATCH = handle(company.update, ({ auth, body }) => updateCompanySettings(auth, body));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
