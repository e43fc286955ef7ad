import { SurveyForm } from "@/components/surveys/survey-form";
import { BackLink, PageHeader } from "@/components/ui";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "New survey" };

export default function NewSurveyPage() {
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title="New survey"
        subtitle="The code is checked as you type."
        back={<BackLink href="/surveys">Surveys</BackLink>}
      />
      <SurveyForm />
    </div>
  );
}
