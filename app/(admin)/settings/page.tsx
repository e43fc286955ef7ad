import { CompanySettingsPage } from "@/components/company-settings";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Company settings" };

export default function Page() {
  return <CompanySettingsPage />;
}
