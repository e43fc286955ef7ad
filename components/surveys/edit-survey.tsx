"use client";

import { useSurvey } from "@/lib/client/surveys";
import { ErrorState } from "../error-state";
import { BackLink, Loading, PageHeader } from "../ui";
import { SurveyForm } from "./survey-form";

export function EditSurvey({ id }: { id: string }) {
  const survey = useSurvey(id);
  if (survey.isLoading) return <Loading label="Loading the survey…" />;
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title={survey.data ? `Edit ${survey.data.name}` : "Edit survey"}
        subtitle="Each save is kept as a revision in the version history."
        back={<BackLink href={`/surveys/${id}`}>{survey.data?.name ?? "Survey"}</BackLink>}
      />
      {survey.data ? <SurveyForm key={survey.data.__v} survey={survey.data} /> : <ErrorState error={survey.error} title="The survey could not be loaded" onRetry={() => survey.refetch()} retrying={survey.isFetching} />}
    </div>
  );
}
