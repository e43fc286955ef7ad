import type { Metadata } from "next";
import { Suspense } from "react";
import { SurveysList } from "@/components/surveys/surveys-list";
import { Loading } from "@/components/ui";

export const metadata: Metadata = { title: "Surveys" };

export default function SurveysPage() {
  return (
    <Suspense fallback={<Loading label="Loading surveys…" />}>
      <SurveysList />
    </Suspense>
  );
}
