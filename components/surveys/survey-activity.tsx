"use client";

import { useSurvey } from "@/lib/client/surveys";
import Link from "next/link";
import { RecordHistory } from "../audit/record-history";
import { BackLink, PageHeader, linkClass } from "../ui";
import { SurveyTabs } from "./survey-tabs";

/** A survey's Activity tab: its audit entries (who changed what); the revisions, to compare and restore, are its Revisions page. */
export function SurveyActivity({ id }: { id: string }) {
  const survey = useSurvey(id);
  return (
    <>
      <PageHeader
        back={<BackLink href="/surveys">Surveys</BackLink>}
        title={survey.data ? `Activity of ${survey.data.name}` : "Survey activity"}
        subtitle="Who changed the survey and when, each field before and after."
      />
      <SurveyTabs id={id} />
      <RecordHistory
        type="survey"
        id={id}
        base={`/surveys/${id}/activity`}
        note={
          <>
            To compare whole revisions or bring an earlier one back, open the{" "}
            <Link href={`/surveys/${id}/history`} className={linkClass}>
              revisions
            </Link>
            .
          </>
        }
      />
    </>
  );
}
