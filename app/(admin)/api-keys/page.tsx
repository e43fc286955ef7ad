import { ApiKeysPage } from "@/components/api-keys";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "API keys" };

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading the API keys…" />}>
      <ApiKeysPage />
    </Suspense>
  );
}
