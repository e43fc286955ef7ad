"use client";

/** The frame of one survey's pages: its tabs, and a tab's page that waits for the full record. */
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { useSurvey } from "@/lib/client/surveys";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { useIsAdmin } from "../admin-shell";
import { ErrorState } from "@/components/ui/error-state";
import { BackLink, Loading, PageHeader, focusRing } from "../ui";

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
  const pathname = usePathname();
  const isAdmin = useIsAdmin();
  return (
    <nav aria-label="Survey" className="-mt-2 mb-6 overflow-x-auto border-b border-slate-200">
      <ul className="flex min-w-max gap-1">
        {SURVEY_TABS.filter((tab) => !("adminOnly" in tab) || isAdmin).map((tab) => {
          const href = `/surveys/${id}${tab.path}`;
          const current = pathname === href;
          return (
            <li key={tab.label}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={`-mb-px block border-b-2 px-3 py-2 text-sm font-medium ${focusRing} ${
                  current ? "border-sky-700 text-sky-800" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                }`}
              >
                {tab.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
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
      <PageHeader back={<BackLink href="/surveys">Surveys</BackLink>} title={title(survey.data?.name)} subtitle={subtitle} />
      <SurveyTabs id={id} />
      {ready ? (
        <div key={survey.data!.__v}>{children(survey.data!)}</div>
      ) : survey.isLoading || survey.isPlaceholderData ? (
        <Loading label={loading} />
      ) : (
        <ErrorState error={survey.error} title="The survey could not be loaded" notFoundTitle="This survey does not exist" onRetry={() => survey.refetch()} retrying={survey.isFetching} />
      )}
    </>
  );
}
