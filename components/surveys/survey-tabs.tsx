"use client";

/** The frame of one survey's pages: its tabs, and a tab's page that waits for the full record. */
import { ErrorState } from "@/components/ui/error-state";
import { prefetchResults } from "@/lib/client/survey-content";
import { useSurvey } from "@/lib/client/surveys";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useIsAdmin } from "../admin-shell";
import { TabStrip } from "../tab-strip";
import { BackLink, Loading, PageHeader } from "../ui";

/** The views of one survey, one tab each; the page at hand is marked as current. */
const SURVEY_TABS = [
  { path: "", label: "Overview" },
  { path: "/questions", label: "Questions" },
  { path: "/preview", label: "Preview" },
  { path: "/results", label: "Results" },
  { path: "/answers", label: "Answers" },
  // The audit log is the admins' (docs/api.md#audit-log).
  { path: "/activity", label: "Activity", adminOnly: true },
] as const;

export function SurveyTabs({ id }: { id: string }) {
  const isAdmin = useIsAdmin();
  const client = useQueryClient();
  const tabs = SURVEY_TABS.filter((tab) => !("adminOnly" in tab) || isAdmin).map((tab) => ({
    href: `/surveys/${id}${tab.path}`,
    label: tab.label,
    // The results are read as the tab opens: asked for as the pointer rests on it, they are on their way before the click.
    onIntent: tab.path === "/results" ? () => prefetchResults(client, id) : undefined,
  }));
  return <TabStrip label="Survey" tabs={tabs} />;
}

/**
 * A tab of one survey that needs its chats: the header and tabs at once, then `children` with the
 * full record (keyed by its revision, so a saved change starts the tab afresh).
 */
export function SurveyTabPage({
  id,
  title,
  subtitle,
  loading,
  children,
}: {
  id: string;
  title: (name: string | undefined) => string;
  subtitle: string;
  loading: string;
  children: (survey: SurveyRecord) => ReactNode;
}) {
  const survey = useSurvey(id);
  const ready = survey.data && !survey.isPlaceholderData;
  return (
    <>
      <PageHeader
        back={<BackLink href="/surveys">Surveys</BackLink>}
        title={title(survey.data?.name)}
        subtitle={subtitle}
      />
      <SurveyTabs id={id} />
      {ready ? (
        <div key={survey.data!.__v}>{children(survey.data!)}</div>
      ) : survey.isLoading || survey.isPlaceholderData ? (
        <Loading label={loading} />
      ) : (
        <ErrorState
          error={survey.error}
          title="The survey could not be loaded"
          notFoundTitle="This survey does not exist"
          onRetry={() => survey.refetch()}
          retrying={survey.isFetching}
        />
      )}
    </>
  );
}
