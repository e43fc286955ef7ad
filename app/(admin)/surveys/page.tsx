import { SurveysList } from "@/components/surveys/surveys-list";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Surveys" };

export default function SurveysPage() {
  return (
    <Suspense fallback={<Loading label="Loading surveys…" />}>
      <SurveysList />
    </Suspense>
  );
}
