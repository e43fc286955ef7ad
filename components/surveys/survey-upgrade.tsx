"use client";

import { ErrorMessage } from "@/components/ui/error-message";
import { ErrorState } from "@/components/ui/error-state";
import { useToast } from "@/components/ui/toast";
import type { Notification } from "@/lib/base/schemas/common";
import { feedback, focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { previewUpgrade } from "@/lib/client/survey-upgrade";
import { useSurvey, useUpdateSurvey } from "@/lib/client/surveys";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { BackLink, Button, Card, ChangeTable, LinkButton, Loading, PageHeader } from "../ui";
import { VersionBadge, fieldText, useSurveyNames } from "./survey-fields";

export function SurveyUpgrade({ id }: { id: string }) {
  const survey = useSurvey(id);
  if (survey.isLoading) return <Loading label="Loading the survey…" />;
  const back = <BackLink href={`/surveys/${id}`}>{survey.data?.name ?? "Survey"}</BackLink>;
  if (!survey.data) {
    return (
      <>
        <PageHeader title="Upgrade to version 2" back={back} />
        <ErrorState
          error={survey.error}
          title="The survey could not be loaded"
          onRetry={() => survey.refetch()}
          retrying={survey.isFetching}
        />
      </>
    );
  }
  return <Upgrade survey={survey.data} back={back} />;
}

function Upgrade({ survey, back }: { survey: SurveyRecord; back: ReactNode }) {
  const router = useRouter();
  const names = useSurveyNames();
  const update = useUpdateSurvey(survey._id);
  const toast = useToast();
  const [warnings, setWarnings] = useState<Notification[]>();
  const preview = previewUpgrade(survey);

  async function upgrade() {
    try {
      const result = await update.mutateAsync({ body: { version: 2 } });
      const lost = (result.debug ?? []).filter((note) => note.level !== "info");
      if (lost.length > 0) setWarnings(lost);
      else {
        toast.show({ message: `${feedback.saved("survey")} It now uses the version 2 permission model.` });
        focusHeadingAfterNavigation();
        router.push(`/surveys/${survey._id}`);
      }
    } catch {
      // Shown from the mutation's error below.
    }
  }

  if (survey.version === 2 && !warnings && update.isIdle) {
    return (
      <div className="mx-auto max-w-4xl">
        <PageHeader title="Upgrade to version 2" back={back} />
        <Card className="p-6">
          <p className="text-sm text-slate-700">
            <strong>{survey.name}</strong> already uses the version 2 permission model.
          </p>
          <div className="mt-4">
            <LinkButton href={`/surveys/${survey._id}`}>Back to the survey</LinkButton>
          </div>
        </Card>
      </div>
    );
  }

  const rows: [string, string, string][] = [
    ["Version", "1", "2"],
    [
      "Roles and rights",
      `${fieldText("permissions", survey.permissions, names)} (may answer)`,
      fieldText("permissionsV2", preview.permissionsV2, names),
    ],
    [
      "Groups",
      survey.group === null
        ? "none"
        : `${survey.group}: ${fieldText("groupPermissions", survey.groupPermissions, names)}`,
      fieldText("groupPermissionsV2", preview.groupPermissionsV2, names),
    ],
    ["Only as sub-survey", "(no such setting)", fieldText("onlySubSurvey", preview.onlySubSurvey, names)],
  ];

  return (
    <div className="mx-auto max-w-5xl">
      <PageHeader
        back={back}
        title="Upgrade to version 2"
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            {survey.name} <VersionBadge version={survey.version} /> → <VersionBadge version={2} />
          </span>
        }
      />
      {warnings ? (
        <Card className="p-6">
          <p role="status" className="text-sm text-slate-800">
            The survey now uses version 2. The server noted:
          </p>
          <ul className="mt-2 list-disc pl-5 text-sm text-amber-900">
            {warnings.map((note) => (
              <li key={`${note.code}:${note.message}`}>{note.message}</li>
            ))}
          </ul>
          <div className="mt-4">
            <LinkButton href={`/surveys/${survey._id}`} kind="primary">
              See the survey
            </LinkButton>
          </div>
        </Card>
      ) : (
        <>
          <Card className="overflow-hidden">
            <h2 className="border-b border-slate-200 px-4 py-3 text-base font-semibold text-slate-900">What changes</h2>
            <ChangeTable
              testId="upgrade-preview"
              caption="The survey’s permissions now and after the upgrade"
              headers={["Setting", "Now (version 1)", "After the upgrade (version 2)"]}
              rows={rows.map(([label, before, after]) => ({ key: label, field: label, before, after }))}
            />
            <div className="border-t border-slate-200 px-4 py-3 text-sm text-slate-600">
              <p>
                The same roles keep the same access. The version 1 fields stay stored, unused, so going back to version
                1 is possible from the version history.
              </p>
              {preview.losses.length > 0 && (
                <ul className="mt-2 list-disc pl-5 text-amber-900">
                  {preview.losses.map((loss) => (
                    <li key={loss}>{loss}</li>
                  ))}
                </ul>
              )}
            </div>
          </Card>
          {update.isError && (
            <div className="mt-4">
              <ErrorMessage error={update.error} title="The survey was not upgraded" />
            </div>
          )}
          <div className="mt-6 flex flex-wrap justify-end gap-3">
            <LinkButton href={`/surveys/${survey._id}`}>Cancel</LinkButton>
            <Button kind="primary" onClick={upgrade} disabled={update.isPending}>
              {update.isPending ? "Upgrading…" : "Upgrade to version 2"}
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
