"use client";

/**
 * The survey as a respondent meets it: one chat after another, each question with the input its
 * type calls for. Sending records a real response of the signed-in admin when the survey's
 * permissions let that admin's roles answer; otherwise the page says in plain words why not.
 */
import { ErrorMessage } from "@/components/ui/error-message";
import { ApiError } from "@/lib/client/api";
import { plainDetail } from "@/lib/client/form-errors";
import { useSubmitResponse, type ResponseBody } from "@/lib/client/survey-content";
import { MAX_RATING, MIN_RATING } from "@/lib/resources/answers/contract";
import type { QuestionRecord, SurveyRecord } from "@/lib/resources/surveys/contract";
import Link from "next/link";
import { useRef, useState, type FormEvent } from "react";
import { Button, Card, Checkbox, EmptyState, LinkButton, focusRing, inputClass, linkClass } from "../ui";
import { SurveyTabPage } from "./survey-tabs";

export function SurveyPreview({ id }: { id: string }) {
  return (
    <SurveyTabPage
      id={id}
      title={(name) => (name ? `Preview of ${name}` : "Preview")}
      subtitle="Fill the survey in as a respondent would. Sending records a real response in your name."
      loading="Loading the survey…"
    >
      {(survey) => <Respondent survey={survey} />}
    </SurveyTabPage>
  );
}

/** What an input holds: the text of a field, or the options ticked. */
type Raw = string | string[];

/** An input's content as the API's value for the question's type; undefined when left blank. */
function answerValue(
  question: QuestionRecord,
  raw: Raw | undefined,
): ResponseBody["answers"][number]["value"] | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) return raw.length ? raw : undefined;
  if (raw.trim() === "") return undefined;
  switch (question.type) {
    case "number":
    case "rating":
      return Number(raw);
    case "yes_no":
      return raw === "true";
    default:
      return raw;
  }
}

/** Why a response was refused, said to the person who tried. */
function refusal(error: unknown, survey: SurveyRecord): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.status === 403) {
    return survey.version === 2
      ? "Your access roles may not answer this survey: none of them has “Answer” ticked in the survey’s permissions."
      : "Your access roles may not answer this survey: none of them is among the survey’s permissions (version 1).";
  }
  if (error.status === 409) return "This survey is inactive, so it takes no answers. Activate it to try it.";
  return undefined;
}

function Respondent({ survey }: { survey: SurveyRecord }) {
  const chats = (survey.chat ?? []).filter((chat) => chat.questions.length > 0);
  const [step, setStep] = useState(0);
  const [values, setValues] = useState<Record<string, Raw>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [sent, setSent] = useState<number>();
  const submit = useSubmitResponse(survey._id);
  const heading = useRef<HTMLHeadingElement>(null);

  if (chats.length === 0) {
    return (
      <Card>
        <EmptyState title="Nothing to answer yet">
          This survey has no questions. Write some under{" "}
          <Link href={`/surveys/${survey._id}/questions`} className={linkClass}>
            Questions
          </Link>{" "}
          first.
        </EmptyState>
      </Card>
    );
  }

  const go = (next: number) => {
    setStep(next);
    requestAnimationFrame(() => heading.current?.focus());
  };
  const chat = chats[step]!;
  const last = step === chats.length - 1;
  const questions = chats.flatMap((c) => c.questions);
  const answers = questions.flatMap((question) => {
    const value = answerValue(question, values[question._id]);
    return value === undefined ? [] : [{ question: question._id, value }];
  });

  async function send(event: FormEvent) {
    event.preventDefault();
    if (!last) return go(step + 1);
    setErrors({});
    if (answers.length === 0) {
      setErrors({ form: "Answer at least one question before sending." });
      return;
    }
    try {
      const recorded = await submit.mutateAsync({ answers });
      setSent(recorded.answers.length);
    } catch (error) {
      if (!(error instanceof ApiError)) return;
      // `answers.N.value` names the Nth answer sent: shown on its question, and its chat shown.
      const found: Record<string, string> = {};
      for (const detail of error.details) {
        const index = /^answers\.(\d+)/.exec(detail.path)?.[1];
        const answer = index === undefined ? undefined : answers[Number(index)];
        if (answer) found[answer.question] ??= plainDetail(detail.message);
      }
      setErrors(found);
      const first = chats.findIndex((c) => c.questions.some((question) => found[question._id]));
      if (first >= 0 && first !== step) go(first);
    }
  }

  function restart() {
    setValues({});
    setSent(undefined);
    submit.reset();
    go(0);
  }

  if (sent !== undefined) {
    return (
      <Card className="p-5 sm:p-6">
        <h2
          ref={heading}
          tabIndex={-1}
          className="text-lg font-semibold text-slate-900"
          data-testid="response-recorded"
        >
          Your response was recorded
        </h2>
        <p className="mt-2 text-sm text-slate-700">
          {sent} {sent === 1 ? "answer was" : "answers were"} stored. They count in the results at once.
        </p>
        <div className="mt-4 flex flex-wrap gap-3">
          <LinkButton href={`/surveys/${survey._id}/results`} kind="primary">
            See the results
          </LinkButton>
          <Button onClick={restart}>Answer again</Button>
        </div>
      </Card>
    );
  }

  const why = refusal(submit.error, survey);
  return (
    <form onSubmit={send} noValidate className="flex flex-col gap-4">
      {!survey.isActive && (
        <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          This survey is inactive: you can look through it, but it takes no answers.
        </p>
      )}
      <Card className="p-5 sm:p-6">
        <p className="text-xs font-medium tracking-wide text-slate-500 uppercase">
          Chat {step + 1} of {chats.length}
        </p>
        <h2 ref={heading} tabIndex={-1} className="mt-1 text-lg font-semibold text-slate-900 focus:outline-none">
          {chat.name}
        </h2>
        <ol className="mt-4 flex max-w-2xl flex-col gap-6">
          {chat.questions.map((question, index) => (
            <li key={question._id}>
              <QuestionInput
                question={question}
                number={index + 1}
                value={values[question._id]}
                error={errors[question._id]}
                onChange={(value) => setValues((all) => ({ ...all, [question._id]: value }))}
              />
            </li>
          ))}
        </ol>
      </Card>
      {errors.form && (
        <p role="alert" className="text-sm text-rose-700">
          {errors.form}
        </p>
      )}
      {submit.isError &&
        (why ? (
          <div role="alert" className="rounded-md border border-rose-200 bg-rose-50 p-4 text-sm text-rose-900">
            <p className="font-semibold">The response was not recorded</p>
            <p className="mt-1">{why}</p>
            <p className="mt-2">
              <Link href={`/surveys/${survey._id}/edit`} className={linkClass}>
                Change the survey’s settings
              </Link>
            </p>
          </div>
        ) : (
          <ErrorMessage
            error={submit.error}
            title="The response was not recorded"
            hideDetails={Object.keys(errors).length > 0}
          />
        ))}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          {answers.length} of {questions.length} questions answered
        </p>
        <div className="flex gap-3">
          {step > 0 && <Button onClick={() => go(step - 1)}>Previous chat</Button>}
          <Button type="submit" kind="primary" disabled={submit.isPending}>
            {!last ? "Next chat" : submit.isPending ? "Sending…" : "Send response"}
          </Button>
        </div>
      </div>
    </form>
  );
}

const choiceClass = `flex cursor-pointer items-center gap-2 rounded-md border border-slate-300 px-3 py-2 text-sm text-slate-800 has-[:checked]:border-sky-600 has-[:checked]:bg-sky-50`;

function QuestionInput({
  question,
  number,
  value,
  error,
  onChange,
}: {
  question: QuestionRecord;
  number: number;
  value: Raw | undefined;
  error?: string;
  onChange: (value: Raw) => void;
}) {
  const id = `answer-${question._id}`;
  const described = error ? { "aria-invalid": true, "aria-describedby": `${id}-error` } : {};
  const label = (
    <>
      <span className="text-slate-500">{number}. </span>
      {question.text}
    </>
  );
  const text = typeof value === "string" ? value : "";
  const picked = Array.isArray(value) ? value : [];
  const errorLine = error && (
    <p id={`${id}-error`} className="mt-1 text-sm text-rose-700">
      {error}
    </p>
  );

  const radios = (options: { value: string; label: string }[], inline = false) => (
    <fieldset {...described}>
      <legend className="text-sm font-medium text-slate-800">{label}</legend>
      <div className={`mt-2 flex gap-2 ${inline ? "flex-row flex-wrap" : "flex-col"}`}>
        {options.map((option) => (
          <label key={option.value} className={choiceClass}>
            <input
              type="radio"
              name={id}
              value={option.value}
              checked={text === option.value}
              onChange={() => onChange(option.value)}
              className={`accent-sky-700 ${focusRing}`}
            />
            {option.label}
          </label>
        ))}
      </div>
      {errorLine}
    </fieldset>
  );

  switch (question.type) {
    case "yes_no":
      return radios(
        [
          { value: "true", label: "Yes" },
          { value: "false", label: "No" },
        ],
        true,
      );
    case "single_choice":
      return radios(question.options.map((option) => ({ value: option, label: option })));
    case "rating":
      return radios(
        Array.from({ length: MAX_RATING - MIN_RATING + 1 }, (_, i) => String(MIN_RATING + i)).map((n) => ({
          value: n,
          label: n,
        })),
        true,
      );
    case "multiple_choice":
      return (
        <fieldset {...described}>
          <legend className="text-sm font-medium text-slate-800">
            {label} <span className="font-normal text-slate-500">(choose any)</span>
          </legend>
          <div className="mt-2 flex flex-col gap-2">
            {question.options.map((option) => (
              <label key={option} className={choiceClass}>
                <Checkbox
                  checked={picked.includes(option)}
                  onChange={(event) =>
                    onChange(event.target.checked ? [...picked, option] : picked.filter((p) => p !== option))
                  }
                />
                {option}
              </label>
            ))}
          </div>
          {errorLine}
        </fieldset>
      );
    default:
      return (
        <div className="flex flex-col gap-1">
          <label htmlFor={id} className="text-sm font-medium text-slate-800">
            {label}
          </label>
          {question.type === "text" ? (
            <textarea
              id={id}
              rows={3}
              value={text}
              onChange={(event) => onChange(event.target.value)}
              {...described}
              className={inputClass}
            />
          ) : (
            <input
              id={id}
              type={question.type === "number" ? "number" : "date"}
              step="any"
              value={text}
              onChange={(event) => onChange(event.target.value)}
              {...described}
              className={`${inputClass} max-w-60`}
            />
          )}
          {errorLine}
        </div>
      );
  }
}
