"use client";

import { ErrorState } from "@/components/ui/error-state";
import { QUESTION_TYPE_LABELS } from "@/lib/client/content-draft";
import { useSurvey } from "@/lib/client/surveys";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { useIsAdmin } from "../admin-shell";
import {
  ActiveBadge,
  BackLink,
  Badge,
  Card,
  DateTime,
  EmptyState,
  Facts,
  LinkButton,
  Loading,
  PageHeader,
} from "../ui";
import { VersionBadge, fieldText, useSurveyNames } from "./survey-fields";
import { SurveyTabs } from "./survey-tabs";

export function SurveyDetail({ id }: { id: string }) {
  const survey = useSurvey(id);
  if (survey.isLoading) return <Loading label="Loading the survey…" />;
  if (!survey.data) {
    return (
      <>
        <PageHeader title="Survey" back={<BackLink href="/surveys">Surveys</BackLink>} />
        <ErrorState
          error={survey.error}
          title="The survey could not be loaded"
          notFoundTitle="This survey does not exist"
          onRetry={() => survey.refetch()}
          retrying={survey.isFetching}
        />
      </>
    );
  }
  return <SurveyView survey={survey.data} partial={survey.isPlaceholderData} />;
}

/** `partial`: the record as the list held it, without its chats, until the full one arrives. */
function SurveyView({ survey, partial }: { survey: SurveyRecord; partial: boolean }) {
  const names = useSurveyNames();
  const isAdmin = useIsAdmin();
  const chats = survey.chat ?? [];
  const questions = chats.reduce((sum, chat) => sum + chat.questions.length, 0);
  const answers = chats.reduce((sum, chat) => sum + chat.questions.reduce((n, q) => n + q.answerCount, 0), 0);
  const text = (field: keyof SurveyRecord) => fieldText(field, survey[field], names);

  return (
    <>
      <PageHeader
        back={<BackLink href="/surveys">Surveys</BackLink>}
        title={survey.name}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <code className="font-mono text-slate-700">{survey.code}</code>
            <VersionBadge version={survey.version} />
            <ActiveBadge active={survey.isActive} />
          </span>
        }
        actions={
          isAdmin && (
            <>
              <LinkButton href={`/surveys/${survey._id}/edit`} kind="primary">
                Edit
              </LinkButton>
              <LinkButton href={`/surveys/${survey._id}/history`}>Revisions</LinkButton>
              {survey.version === 1 && (
                <LinkButton href={`/surveys/${survey._id}/upgrade`}>Upgrade to version 2</LinkButton>
              )}
            </>
          )
        }
      />
      <SurveyTabs id={survey._id} />

      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="p-5 sm:p-6 lg:col-span-2">
          <h2 className="mb-4 text-base font-semibold text-slate-900">Permissions (version {survey.version} model)</h2>
          {survey.version === 1 ? (
            <Facts
              items={[
                ["Roles that may answer", text("permissions")],
                ["Group", text("group")],
                ["Roles of the group", text("groupPermissions")],
              ]}
            />
          ) : (
            <Facts
              items={[
                ["Roles and rights", text("permissionsV2")],
                ["Groups", text("groupPermissionsV2")],
                ["Only as sub-survey", text("onlySubSurvey")],
              ]}
            />
          )}
          <div className="mt-4 border-t border-slate-100 pt-4">
            <Facts
              items={[
                ["Channel properties", text("propertiesChannel")],
                ["Limit properties", text("propertiesLimit")],
                ["Responders", survey.responders.length === 0 ? "none" : `${survey.responders.length} users`],
                ["System model", text("isSystemModel")],
              ]}
            />
          </div>
        </Card>
        <Card className="p-5 sm:p-6 lg:self-start">
          <h2 className="mb-4 text-base font-semibold text-slate-900">Summary</h2>
          <Facts
            items={[
              ["Chats", partial ? "…" : String(chats.length)],
              ["Questions", partial ? "…" : String(questions)],
              ["Answers", partial ? "…" : answers.toLocaleString("en")],
              ["Revision", String(survey.__v)],
              ["Created", <DateTime key="c" value={survey.createdAt} />],
              ["Modified", <DateTime key="m" value={survey.modifiedAt} />],
            ]}
          />
        </Card>
      </div>

      <div className="mt-8 mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-lg font-semibold text-slate-900">Chats and questions</h2>
        {isAdmin && <LinkButton href={`/surveys/${survey._id}/questions`}>Edit questions</LinkButton>}
      </div>
      {partial ? (
        <Loading label="Loading the chats…" />
      ) : chats.length === 0 ? (
        <Card>
          <EmptyState title="This survey has no chats yet">
            Write its chats and questions with “Edit questions”, then try them in the Preview.
          </EmptyState>
        </Card>
      ) : (
        <ol className="flex flex-col gap-4">
          {chats.map((chat) => (
            <li key={chat._id}>
              <Card className="overflow-hidden">
                <div className="flex flex-wrap items-baseline justify-between gap-2 border-b border-slate-200 bg-slate-50 px-4 py-3">
                  <h3 className="font-medium text-slate-900">
                    <span className="mr-2 text-slate-500">#{chat.order}</span>
                    {chat.name}
                  </h3>
                  <span className="text-xs text-slate-500">
                    {chat.questions.length} {chat.questions.length === 1 ? "question" : "questions"}
                  </span>
                </div>
                {chat.questions.length === 0 ? (
                  <p className="px-4 py-3 text-sm text-slate-500">No questions.</p>
                ) : (
                  <table className="w-full text-left text-sm">
                    <caption className="sr-only">Questions of {chat.name}</caption>
                    <thead className="text-xs tracking-wide text-slate-500 uppercase">
                      <tr>
                        <th scope="col" className="px-4 py-2">
                          Question
                        </th>
                        <th scope="col" className="hidden px-4 py-2 md:table-cell">
                          Type
                        </th>
                        <th scope="col" className="px-4 py-2 text-right">
                          Answers
                        </th>
                      </tr>
                    </thead>
                    <tbody className="divide-y divide-slate-100">
                      {chat.questions.map((question) => (
                        <tr key={question._id}>
                          <td className="px-4 py-2 text-slate-800">
                            {question.text}
                            {question.options.length > 0 && (
                              <span className="mt-0.5 block text-xs text-slate-500">
                                {question.options.join(" · ")}
                              </span>
                            )}
                          </td>
                          <td className="hidden px-4 py-2 md:table-cell">
                            <Badge>{QUESTION_TYPE_LABELS[question.type] ?? question.type}</Badge>
                          </td>
                          <td className="px-4 py-2 text-right text-slate-800 tabular-nums">
                            {question.answerCount.toLocaleString("en")}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Card>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
