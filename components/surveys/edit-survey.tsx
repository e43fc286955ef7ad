"use client";

import { ErrorState } from "@/components/ui/error-state";
import { useSurveyToEdit } from "@/lib/client/surveys";
import { BackLink, Loading, PageHeader } from "../ui";
import { SurveyForm } from "./survey-form";

export function EditSurvey({ id }: { id: string }) {
  const edit = useSurveyToEdit(id);
  const survey = edit.data?.body;
  if (edit.isLoading) return <Loading label="Loading the survey…" />;
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title={survey ? `Edit ${survey.name}` : "Edit survey"}
        subtitle="Each save is kept as a revision in the version history."
        back={<BackLink href={`/surveys/${id}`}>{survey?.name ?? "Survey"}</BackLink>}
      />
      {/* A new tag (a reload after a conflict) starts the form again from that version. */}
      {edit.data && survey ? (
        <SurveyForm key={edit.data.etag} survey={survey} etag={edit.data.etag} />
      ) : (
        <ErrorState
          error={edit.error}
          title="The survey could not be loaded"
          onRetry={() => edit.refetch()}
          retrying={edit.isFetching}
        />
      )}
    </div>
  );
}
