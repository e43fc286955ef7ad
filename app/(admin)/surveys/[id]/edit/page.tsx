import { EditSurvey } from "@/components/surveys/edit-survey";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Edit survey" };

export default async function EditSurveyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditSurvey id={id} />;
}
