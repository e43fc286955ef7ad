import { SurveyDetail } from "@/components/surveys/survey-detail";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Survey" };

export default async function SurveyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<Loading label="Loading the survey…" />}>
      <SurveyDetail id={id} />
    </Suspense>
  );
}
