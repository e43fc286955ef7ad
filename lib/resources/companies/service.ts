/**
 * The caller's company and its settings (docs/api.md#days): read by every member, changed by its
 * admins. Another company is never named: the company is always the caller's.
 */
import { DEFAULT_TIME_ZONE } from "@/lib/base/shared/days";
import { notFound } from "@/lib/kernel/errors";
import { oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import type { CompanySettings, UpdateCompanyBody } from "./contract";
import { findCompanySettings, setCompanySettings } from "./repository";

const toSettings = (company: {
  _id: { toHexString(): string };
  name: string;
  timeZone?: string | null;
  modifiedAt: Date;
}): CompanySettings => ({
  _id: company._id.toHexString(),
  name: company.name,
  timeZone: company.timeZone || DEFAULT_TIME_ZONE,
  modifiedAt: company.modifiedAt.toISOString(),
});

export async function getCompanySettings(auth: Principal): Promise<CompanySettings> {
  const company = await findCompanySettings(oid(auth.companyId));
  if (!company) throw notFound("company");
  return toSettings(company);
}

export async function updateCompanySettings(auth: Principal, body: UpdateCompanyBody): Promise<CompanySettings> {
  const company = await setCompanySettings(oid(auth.companyId), body, new Date());
  if (!company) throw notFound("company");
  return toSettings(company);
}
