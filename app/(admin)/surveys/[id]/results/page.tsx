import { SurveyResults } from "@/components/surveys/survey-results";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Survey results" };

export default async function SurveyResultsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // The date range lives in the URL: useSearchParams needs a Suspense boundary above it.
  return (
    <Suspense fallback={<Loading label="Loading the results…" />}>
      <SurveyResults id={id} />
    </Suspense>
  );
}
