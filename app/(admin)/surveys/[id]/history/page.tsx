import { SurveyHistory } from "@/components/surveys/survey-history";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Survey history" };

export default async function SurveyHistoryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SurveyHistory id={id} />;
}
