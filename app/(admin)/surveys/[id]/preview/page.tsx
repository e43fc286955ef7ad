import { SurveyPreview } from "@/components/surveys/survey-preview";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Survey preview" };

export default async function SurveyPreviewPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SurveyPreview id={id} />;
}
