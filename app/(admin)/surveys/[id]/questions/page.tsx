import { EditQuestions } from "@/components/surveys/question-editor";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Survey questions" };

export default async function SurveyQuestionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditQuestions id={id} />;
}
