import { SurveyAnswers } from "@/components/surveys/survey-answers";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Survey answers" };

export default async function SurveyAnswersPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // The filters live in the URL: useSearchParams needs a Suspense boundary above it.
  return (
    <Suspense fallback={<Loading label="Loading the answers…" />}>
      <SurveyAnswers id={id} />
    </Suspense>
  );
}
