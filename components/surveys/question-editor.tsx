"use client";

/**
 * The question editor: a survey's chats and their questions, added, renamed, removed and put in
 * order by mouse (drag by the handle) or by keyboard alone (the handle with Space and the arrows,
 * or the move buttons, each move read out in a live region). The whole content is saved as one
 * `PUT`, so one save is one revision.
 */
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import {
  contentErrors,
  contentFields,
  contentServerErrors,
  describeChatPlace,
  describeQuestionPlace,
  fieldId,
  findQuestion,
  moveChat,
  moveQuestionTo,
  newKey,
  QUESTION_TYPE_LABELS,
  stepQuestion,
  toBody,
  toDraft,
  type Draft,
  type DraftChat,
  type DraftQuestion,
} from "@/lib/client/content-draft";
import { feedback, focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { focusFirstError, type FieldErrors } from "@/lib/client/form-errors";
import { useSaveContent } from "@/lib/client/survey-content";
import { isChoiceType, QuestionType, type SurveyRecord } from "@/lib/resources/surveys/contract";
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from "@dnd-kit/core";
import {
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { LeaveGuard } from "../leave-guard";
import { Badge, Button, Card, describedBy, EmptyState, focusRing, inputClass, LinkButton } from "../ui";
import { SurveyTabPage } from "./survey-tabs";

export function EditQuestions({ id }: { id: string }) {
  return (
    <SurveyTabPage
      id={id}
      title={(name) => (name ? `Questions of ${name}` : "Questions")}
      subtitle="Chats are asked one after another, each with its questions in order. Saving keeps the whole content as one revision in the version history."
      loading="Loading the questions…"
    >
      {(survey) => <QuestionEditor survey={survey} />}
    </SurveyTabPage>
  );
}

type Removal = { kind: "chat"; key: string } | { kind: "question"; key: string };

const focusSoon = (id: string, fallback?: string) =>
  requestAnimationFrame(() => {
    const element = document.getElementById(id) as HTMLButtonElement | null;
    if (element && !element.disabled) element.focus();
    else if (fallback) document.getElementById(fallback)?.focus();
  });

const answered = (chat: DraftChat) => chat.questions.reduce((sum, question) => sum + question.answerCount, 0);
const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

function QuestionEditor({ survey }: { survey: SurveyRecord }) {
  const router = useRouter();
  const toast = useToast();
  const save = useSaveContent(survey._id);
  const [draft, setDraftState] = useState<Draft>(() => toDraft(survey.chat));
  const [start] = useState(() => JSON.stringify(toBody(draft)));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>();
  const [announcement, setAnnouncement] = useState("");
  const [removal, setRemoval] = useState<Removal>();
  const dirty = JSON.stringify(toBody(draft)) !== start;
  const dndId = useId();
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  /** Any change of shape moves fields: errors keyed by position would then point at the wrong one. */
  const setDraft = (next: Draft) => {
    setDraftState(next);
    if (Object.keys(errors).length) setErrors({});
  };
  const editChat = (key: string, change: Partial<DraftChat>) =>
    setDraftState((d) => d.map((chat) => (chat.key === key ? { ...chat, ...change } : chat)));
  const editQuestion = (key: string, change: Partial<DraftQuestion>) =>
    setDraftState((d) =>
      d.map((chat) => ({
        ...chat,
        questions: chat.questions.map((question) => (question.key === key ? { ...question, ...change } : question)),
      })),
    );

  function stepChat(key: string, step: -1 | 1) {
    const from = draft.findIndex((chat) => chat.key === key);
    const next = moveChat(draft, from, from + step);
    if (next === draft) return;
    setDraft(next);
    setAnnouncement(describeChatPlace(next, key));
    focusSoon(`move-${key}-${step < 0 ? "up" : "down"}`, `move-${key}-${step < 0 ? "down" : "up"}`);
  }

  function step(key: string, direction: -1 | 1) {
    const next = stepQuestion(draft, key, direction);
    if (next === draft) return;
    setDraft(next);
    setAnnouncement(describeQuestionPlace(next, key));
    focusSoon(`move-${key}-${direction < 0 ? "up" : "down"}`, `move-${key}-${direction < 0 ? "down" : "up"}`);
  }

  function addChat() {
    const key = newKey("chat");
    setDraft([...draft, { key, name: "", questions: [] }]);
    setAnnouncement(`Chat ${draft.length + 1} added.`);
    focusSoon(fieldId(`chat.${draft.length}.name`));
  }

  function addQuestion(chatKey: string) {
    const key = newKey("question");
    const index = draft.findIndex((chat) => chat.key === chatKey);
    setDraft(
      draft.map((chat) =>
        chat.key === chatKey
          ? { ...chat, questions: [...chat.questions, { key, text: "", type: "text", options: "", answerCount: 0 }] }
          : chat,
      ),
    );
    focusSoon(fieldId(`chat.${index}.questions.${draft[index]!.questions.length}.text`));
  }

  function remove(target: Removal) {
    setRemoval(undefined);
    if (target.kind === "chat") {
      const index = draft.findIndex((chat) => chat.key === target.key);
      const next = draft.filter((chat) => chat.key !== target.key);
      setDraft(next);
      setAnnouncement(`Chat ${index + 1} removed.`);
      focusSoon(next.length ? fieldId(`chat.${Math.min(index, next.length - 1)}.name`) : "add-chat");
    } else {
      const at = findQuestion(draft, target.key);
      if (!at) return;
      const chat = draft[at.chat]!;
      const rest = chat.questions.filter((question) => question.key !== target.key);
      setDraft(draft.map((c) => (c.key === chat.key ? { ...c, questions: rest } : c)));
      setAnnouncement(`Question ${at.question + 1} of chat ${at.chat + 1} removed.`);
      focusSoon(
        rest.length
          ? fieldId(`chat.${at.chat}.questions.${Math.min(at.question, rest.length - 1)}.text`)
          : `add-question-${chat.key}`,
      );
    }
  }

  function askRemove(target: Removal) {
    const count =
      target.kind === "chat"
        ? answered(draft.find((chat) => chat.key === target.key)!)
        : (draft.flatMap((chat) => chat.questions).find((q) => q.key === target.key)?.answerCount ?? 0);
    if (count > 0) setRemoval(target);
    else remove(target);
  }

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    const activeKey = String(active.id);
    const overKey = String(over.id);
    const chatIndex = (key: string) => draft.findIndex((chat) => chat.key === key);
    if (chatIndex(activeKey) >= 0) {
      // A chat dropped on a chat, or on one of that chat's questions.
      const to = chatIndex(overKey) >= 0 ? chatIndex(overKey) : findQuestion(draft, overKey)?.chat;
      if (to === undefined) return;
      const next = moveChat(draft, chatIndex(activeKey), to);
      setDraft(next);
      setAnnouncement(describeChatPlace(next, activeKey));
      return;
    }
    const to =
      chatIndex(overKey) >= 0
        ? { chat: chatIndex(overKey), question: draft[chatIndex(overKey)]!.questions.length }
        : findQuestion(draft, overKey);
    if (!to) return;
    const next = moveQuestionTo(draft, activeKey, to);
    setDraft(next);
    setAnnouncement(describeQuestionPlace(next, activeKey));
  }

  const nameOf = (id: UniqueIdentifier) => {
    const key = String(id);
    const chat = draft.find((c) => c.key === key);
    if (chat) return `chat “${chat.name.trim() || "without a name"}”`;
    const at = findQuestion(draft, key);
    return at ? `question “${draft[at.chat]!.questions[at.question]!.text.trim() || "without text"}”` : "item";
  };
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${nameOf(active.id)}. Use the arrow keys to move it, Space to drop it here, Escape to cancel.`,
    onDragOver: ({ active, over }) =>
      over
        ? `${nameOf(active.id)} is over ${nameOf(over.id)}.`
        : `${nameOf(active.id)} is no longer over a place to drop.`,
    onDragEnd: ({ active, over }) =>
      over ? `${nameOf(active.id)} was dropped on ${nameOf(over.id)}.` : `${nameOf(active.id)} was dropped.`,
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled.`,
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    const fields = contentFields(draft);
    const local = contentErrors(draft);
    if (Object.keys(local).length) {
      setErrors(local);
      return focusFirstError(local, fields, fieldId);
    }
    setErrors({});
    if (!dirty) {
      toast.show({ message: "Nothing to save: the questions were not changed.", tone: "info" });
      return;
    }
    try {
      const saved = await save.mutateAsync(toBody(draft));
      toast.show({ message: `${feedback.saved("survey")} It is now at revision ${saved.__v}.` });
      focusHeadingAfterNavigation();
      router.push(`/surveys/${survey._id}`);
    } catch (error) {
      const found = contentServerErrors(error, draft);
      setErrors(found);
      setFormError(error);
      focusFirstError(found, fields, fieldId);
    }
  }

  const pending = removal && describeRemoval(draft, removal);
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <LeaveGuard when={dirty && !save.isPending} />
      <p aria-live="polite" role="status" className="sr-only" data-testid="move-announcement">
        {announcement}
      </p>
      {draft.length === 0 ? (
        <Card>
          <EmptyState title="No chat yet">
            A survey asks its questions in chats. Add a chat, then its questions.
          </EmptyState>
        </Card>
      ) : (
        <DndContext
          id={dndId}
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable:
                "To move it, press Space, then the arrow keys; press Space again to drop it, or Escape to cancel.",
            },
          }}
        >
          <SortableContext items={draft.map((chat) => chat.key)} strategy={verticalListSortingStrategy}>
            <ol className="flex flex-col gap-4">
              {draft.map((chat, index) => (
                <ChatItem
                  key={chat.key}
                  chat={chat}
                  index={index}
                  count={draft.length}
                  errors={errors}
                  onName={(name) => editChat(chat.key, { name })}
                  onStep={(direction) => stepChat(chat.key, direction)}
                  onRemove={() => askRemove({ kind: "chat", key: chat.key })}
                  onAdd={() => addQuestion(chat.key)}
                >
                  <SortableContext
                    items={chat.questions.map((question) => question.key)}
                    strategy={verticalListSortingStrategy}
                  >
                    <ol className="flex flex-col gap-3">
                      {chat.questions.map((question, q) => (
                        <QuestionItem
                          key={question.key}
                          question={question}
                          path={`chat.${index}.questions.${q}`}
                          number={q + 1}
                          chatNumber={index + 1}
                          first={index === 0 && q === 0}
                          last={index === draft.length - 1 && q === chat.questions.length - 1}
                          errors={errors}
                          onChange={(change) => editQuestion(question.key, change)}
                          onStep={(direction) => step(question.key, direction)}
                          onRemove={() => askRemove({ kind: "question", key: question.key })}
                        />
                      ))}
                    </ol>
                  </SortableContext>
                </ChatItem>
              ))}
            </ol>
          </SortableContext>
        </DndContext>
      )}
      <div>
        <Button id="add-chat" onClick={addChat}>
          Add a chat
        </Button>
        {errors.chat && (
          <p id={fieldId("chat")} tabIndex={-1} className="mt-1 text-sm text-rose-700">
            {errors.chat}
          </p>
        )}
      </div>
      {formError !== undefined && (
        <ErrorMessage
          error={formError}
          title="The questions could not be saved"
          hideDetails={Object.keys(errors).length > 0}
        />
      )}
      <div className="sticky bottom-0 z-10 -mx-4 flex flex-wrap items-center justify-end gap-3 border-t border-slate-200 bg-white/95 px-4 py-3 sm:mx-0 sm:rounded-lg sm:border">
        <span className="mr-auto text-sm text-slate-600">{dirty ? "Unsaved changes" : "No changes"}</span>
        <LinkButton href={`/surveys/${survey._id}`}>Cancel</LinkButton>
        <Button type="submit" kind="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save questions"}
        </Button>
      </div>
      <ConfirmDialog
        open={pending !== undefined}
        title={pending?.title ?? ""}
        confirmLabel={removal?.kind === "chat" ? "Remove chat" : "Remove question"}
        danger
        onConfirm={() => removal && remove(removal)}
        onCancel={() => setRemoval(undefined)}
      >
        {pending?.body}
      </ConfirmDialog>
    </form>
  );
}

function describeRemoval(draft: Draft, removal: Removal): { title: string; body: string } {
  if (removal.kind === "chat") {
    const chat = draft.find((c) => c.key === removal.key);
    const count = chat ? answered(chat) : 0;
    return {
      title: "Remove an answered chat?",
      body: `Its questions have ${plural(count, "answer", "answers")}. The answers are kept and the results still show them under the removed questions, but the chat is no longer asked.`,
    };
  }
  const question = draft.flatMap((chat) => chat.questions).find((q) => q.key === removal.key);
  return {
    title: "Remove an answered question?",
    body: `“${question?.text ?? ""}” has ${plural(question?.answerCount ?? 0, "answer", "answers")}. The answers are kept and the results still show them under the removed question, but it is no longer asked.`,
  };
}

type Sortable = ReturnType<typeof useSortable>;

/** The handle a pointer drags by, and a keyboard picks up with Space. */
function DragHandle({
  label,
  activator,
  attributes,
  listeners,
}: {
  label: string;
  activator: Sortable["setActivatorNodeRef"];
  attributes: Sortable["attributes"];
  listeners: Sortable["listeners"];
}) {
  return (
    <button
      type="button"
      ref={activator}
      {...attributes}
      {...listeners}
      aria-label={label}
      className={`cursor-grab touch-none rounded-md px-1.5 py-1 text-slate-500 hover:bg-slate-100 active:cursor-grabbing ${focusRing}`}
    >
      <span aria-hidden>⠿</span>
    </button>
  );
}

function MoveButtons({
  id,
  label,
  first,
  last,
  onStep,
}: {
  id: string;
  label: string;
  first: boolean;
  last: boolean;
  onStep: (step: -1 | 1) => void;
}) {
  return (
    <>
      <Button
        id={`move-${id}-up`}
        kind="ghost"
        className="px-2 py-1"
        aria-label={`Move ${label} up`}
        disabled={first}
        onClick={() => onStep(-1)}
      >
        <span aria-hidden>↑</span>
      </Button>
      <Button
        id={`move-${id}-down`}
        kind="ghost"
        className="px-2 py-1"
        aria-label={`Move ${label} down`}
        disabled={last}
        onClick={() => onStep(1)}
      >
        <span aria-hidden>↓</span>
      </Button>
    </>
  );
}

function ChatItem({
  chat,
  index,
  count,
  errors,
  onName,
  onStep,
  onRemove,
  onAdd,
  children,
}: {
  chat: DraftChat;
  index: number;
  count: number;
  errors: FieldErrors;
  onName: (name: string) => void;
  onStep: (step: -1 | 1) => void;
  onRemove: () => void;
  onAdd: () => void;
  children: ReactNode;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: chat.key,
  });
  const label = `chat ${index + 1}`;
  const nameId = fieldId(`chat.${index}.name`);
  const error = errors[`chat.${index}.name`];
  const listError = errors[`chat.${index}.questions`];
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={isDragging ? "relative z-20 opacity-80" : undefined}
      data-testid="chat-item"
    >
      <Card className="overflow-hidden">
        <div className="flex flex-wrap items-start gap-2 border-b border-slate-200 bg-slate-50 px-3 py-3 sm:px-4">
          <DragHandle
            label={`Drag ${label}`}
            activator={setActivatorNodeRef}
            attributes={attributes}
            listeners={listeners}
          />
          <div className="flex min-w-48 flex-1 flex-col gap-1">
            <label htmlFor={nameId} className="text-sm font-medium text-slate-800">
              Chat {index + 1} name
            </label>
            <input
              id={nameId}
              value={chat.name}
              onChange={(event) => onName(event.target.value)}
              autoComplete="off"
              {...describedBy(nameId, error)}
              className={inputClass}
            />
            <FieldError id={nameId} error={error} />
          </div>
          <div className="ml-auto flex items-center gap-1 sm:pt-6">
            <MoveButtons id={chat.key} label={label} first={index === 0} last={index === count - 1} onStep={onStep} />
            <Button kind="ghost" className="px-2 py-1 text-rose-700" onClick={onRemove}>
              Remove<span className="sr-only"> {label}</span>
            </Button>
          </div>
        </div>
        <div className="flex flex-col gap-3 p-3 sm:p-4">
          {chat.questions.length === 0 && <p className="text-sm text-slate-500">No question in this chat yet.</p>}
          {children}
          <div>
            <Button id={`add-question-${chat.key}`} onClick={onAdd}>
              Add a question<span className="sr-only"> to {label}</span>
            </Button>
            {listError && (
              <p id={fieldId(`chat.${index}.questions`)} tabIndex={-1} className="mt-1 text-sm text-rose-700">
                {listError}
              </p>
            )}
          </div>
        </div>
      </Card>
    </li>
  );
}

function QuestionItem({
  question,
  path,
  number,
  chatNumber,
  first,
  last,
  errors,
  onChange,
  onStep,
  onRemove,
}: {
  question: DraftQuestion;
  path: string;
  number: number;
  chatNumber: number;
  first: boolean;
  last: boolean;
  errors: FieldErrors;
  onChange: (change: Partial<DraftQuestion>) => void;
  onStep: (step: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: question.key,
  });
  const label = `question ${number} of chat ${chatNumber}`;
  const textId = fieldId(`${path}.text`);
  const typeId = fieldId(`${path}.type`);
  const optionsId = fieldId(`${path}.options`);
  const keepsType = question.answerCount > 0 && question._id !== undefined;
  const error = (field: string) => errors[`${path}.${field}`];
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={`rounded-md border border-slate-200 bg-white p-3 ${isDragging ? "relative z-20 shadow-lg" : ""}`}
      data-testid="question-item"
    >
      <div className="flex items-start gap-2">
        <DragHandle
          label={`Drag ${label}`}
          activator={setActivatorNodeRef}
          attributes={attributes}
          listeners={listeners}
        />
        <div className="grid min-w-0 flex-1 gap-3 md:grid-cols-[minmax(0,1fr)_12rem]">
          <div className="flex flex-col gap-1">
            <label htmlFor={textId} className="text-sm font-medium text-slate-800">
              Question {number}
              <span className="sr-only"> of chat {chatNumber}</span>
            </label>
            <input
              id={textId}
              value={question.text}
              onChange={(event) => onChange({ text: event.target.value })}
              autoComplete="off"
              {...describedBy(textId, error("text"))}
              className={inputClass}
            />
            <FieldError id={textId} error={error("text")} />
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={typeId} className="text-sm font-medium text-slate-800">
              Type
              <span className="sr-only">
                {" "}
                of question {number} of chat {chatNumber}
              </span>
            </label>
            <select
              id={typeId}
              value={question.type}
              disabled={keepsType}
              onChange={(event) => onChange({ type: QuestionType.parse(event.target.value) })}
              {...describedBy(typeId, error("type"), keepsType)}
              className={inputClass}
            >
              {QuestionType.options.map((type) => (
                <option key={type} value={type}>
                  {QUESTION_TYPE_LABELS[type]}
                </option>
              ))}
            </select>
            {keepsType && !error("type") && (
              <p id={`${typeId}-hint`} className="text-xs text-slate-500">
                Answered questions keep their type.
              </p>
            )}
            <FieldError id={typeId} error={error("type")} />
          </div>
          {isChoiceType(question.type) && (
            <div className="flex flex-col gap-1 md:col-span-2">
              <label htmlFor={optionsId} className="text-sm font-medium text-slate-800">
                Options, one a line
                <span className="sr-only">
                  {" "}
                  of question {number} of chat {chatNumber}
                </span>
              </label>
              <textarea
                id={optionsId}
                rows={Math.min(Math.max(question.options.split("\n").length, 3), 10)}
                value={question.options}
                onChange={(event) => onChange({ options: event.target.value })}
                {...describedBy(optionsId, error("options"), true)}
                className={inputClass}
              />
              {!error("options") && (
                <p id={`${optionsId}-hint`} className="text-xs text-slate-500">
                  2 to 50 different options. Answers that chose an option you remove are kept.
                </p>
              )}
              <FieldError id={optionsId} error={error("options")} />
            </div>
          )}
        </div>
      </div>
      <div className="mt-2 flex flex-wrap items-center justify-end gap-1">
        <span className="mr-auto">
          <Badge tone={question.answerCount > 0 ? "blue" : "grey"}>
            {plural(question.answerCount, "answer", "answers")}
          </Badge>
        </span>
        <MoveButtons id={question.key} label={label} first={first} last={last} onStep={onStep} />
        <Button kind="ghost" className="px-2 py-1 text-rose-700" onClick={onRemove}>
          Remove<span className="sr-only"> {label}</span>
        </Button>
      </div>
    </li>
  );
}

/** The error of the field whose id is `id`, which the field names in its aria-describedby. */
function FieldError({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} className="text-sm text-rose-700">
      {error}
    </p>
  );
}
