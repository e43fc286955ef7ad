import { SurveyActivity } from "@/components/surveys/survey-activity";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Survey history" };

export default async function SurveyActivityPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<Loading label="Loading the history…" />}>
      <SurveyActivity id={id} />
    </Suspense>
  );
}
