"use client";

/**
 * The command palette (Ctrl+K, ⌘K on a Mac, or the header's Find button): finds users and surveys
 * through their lists' own `/v2` searches and opens the chosen one with Enter, and offers the main
 * actions and every page of the menu. It is a native modal <dialog> like the confirm dialog (the
 * browser keeps the focus inside and closes it on Escape) holding cmdk's combobox and listbox.
 */
import { focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { navigateGuarded } from "@/lib/client/history-guard";
import { isPaletteShortcut, usePaletteSearch, useShortcutLabel } from "@/lib/client/palette";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useModalDialog } from "@/lib/client/use-modal-dialog";
import { displayName, seedUsers } from "@/lib/client/users";
import type { SurveyList } from "@/lib/resources/surveys/contract";
import type { UserRecord } from "@/lib/resources/users/contract";
import { useQueryClient } from "@tanstack/react-query";
import { Command, defaultFilter } from "cmdk";
import { useRouter } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import { Badge, Button, Spinner, focusRing } from "./ui";

/** A page of the menu, offered as "Go to …". */
export interface PaletteLink {
  href: string;
  label: string;
}

type SurveyRow = SurveyList["data"]["surveys"][number];

const LABEL = "Find users, surveys and pages";

export function CommandPalette({ pages, canCreate }: { pages: readonly PaletteLink[]; canCreate: boolean }) {
  const [open, setOpen] = useState(false);
  const shortcut = useShortcutLabel();
  // Until React runs the page, neither the button nor Ctrl+K has a listener: say so by disabling it.
  const hydrated = useHydrated();

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isPaletteShortcut(event)) return;
      // The browser's own Ctrl+K (its search bar) gives way to the palette on these pages.
      event.preventDefault();
      setOpen((shown) => !shown);
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        disabled={!hydrated}
        aria-haspopup="dialog"
        aria-keyshortcuts="Control+K Meta+K"
        className={`inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-700 shadow-sm hover:bg-slate-50 disabled:opacity-60 ${focusRing}`}
      >
        <SearchIcon />
        Find
        <kbd
          aria-hidden="true"
          className="hidden rounded border border-slate-300 bg-slate-50 px-1.5 font-sans text-xs text-slate-600 sm:inline"
        >
          {shortcut}
        </kbd>
      </button>
      <PaletteDialog open={open} onClose={() => setOpen(false)}>
        <Palette pages={pages} canCreate={canCreate} onDone={() => setOpen(false)} />
      </PaletteDialog>
    </>
  );
}

const focusInput = (dialog: HTMLDialogElement) => dialog.querySelector<HTMLInputElement>("[cmdk-input]");

/** The modal: opened over the page, closed by Escape, a click beside it or a choice; the focus goes back where it was. */
function PaletteDialog({ open, onClose, children }: { open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useModalDialog(open, focusInput);

  return (
    <dialog
      ref={ref}
      aria-label={LABEL}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // A click on the backdrop lands on the dialog itself, never on its content.
      onClick={(event) => event.target === event.currentTarget && onClose()}
      className="mx-auto mt-[8vh] mb-auto w-[min(40rem,calc(100vw-1.5rem))] overflow-hidden rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/50"
    >
      {/* Mounted only while open: each opening starts from an empty search. */}
      {open && children}
    </dialog>
  );
}

/** cmdk's score of a match at the starts of words (a scattered one scores below 0.2; see `defaultFilter`). */
const STRONG_MATCH = 0.8;

interface Entry {
  value: string;
  href: string;
  label: string;
  keywords?: string[];
}

function Palette({
  pages,
  canCreate,
  onDone,
}: {
  pages: readonly PaletteLink[];
  canCreate: boolean;
  onDone: () => void;
}) {
  const router = useRouter();
  const client = useQueryClient();
  const [text, setText] = useState("");
  const search = usePaletteSearch(text);
  const typed = text.trim();

  const actions: Entry[] = canCreate
    ? [
        {
          value: "action:new-user",
          href: "/users/new",
          label: "New user",
          keywords: ["create", "add", "invite", "person"],
        },
        { value: "action:new-survey", href: "/surveys/new", label: "New survey", keywords: ["create", "add"] },
      ]
    : [];
  const places: Entry[] = pages.map((page) => ({
    value: `page:${page.href}`,
    href: page.href,
    label: `Go to ${page.label}`,
    keywords: ["open", "show", page.label],
  }));
  // The records come filtered by the server; the actions and pages are matched and ranked here by
  // cmdk's own score (its `defaultFilter`), best first, so "new s" puts New survey before New user.
  const scored = (entries: Entry[]) =>
    entries
      .map((entry) => ({ entry, score: typed ? defaultFilter(entry.label, typed, entry.keywords) : 1 }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score);
  const rankedActions = scored(actions);
  const rankedPlaces = scored(places);
  const shownActions = rankedActions.map(({ entry }) => entry);
  const shownPlaces = rankedPlaces.map(({ entry }) => entry);
  // A query that names an action or a page by the starts of its words ("new s", "surv") puts
  // them above the records, the best chosen; anything weaker leaves the records first.
  const best = [...rankedActions, ...rankedPlaces].sort((a, b) => b.score - a.score)[0];
  const commandFirst = typed.length >= 2 && best !== undefined && best.score >= STRONG_MATCH;

  // Beyond the first few matches, the list itself shows them all.
  const query = new URLSearchParams({ search: typed, isActive: "all" });
  const allUsers: Entry | undefined =
    search.userTotal > search.users.length
      ? {
          value: "all:users",
          href: `/users?${query}`,
          label: `All ${search.userTotal.toLocaleString("en")} users matching “${typed}”`,
        }
      : undefined;
  const allSurveys: Entry | undefined =
    search.surveyTotal > search.surveys.length
      ? {
          value: "all:surveys",
          href: `/surveys?${query}`,
          label: `All ${search.surveyTotal.toLocaleString("en")} surveys matching “${typed}”`,
        }
      : undefined;

  // The first entry is chosen whenever the entries change, so Enter opens the best match of the
  // newest answer rather than whatever was chosen before it arrived.
  const recordValues = [
    ...search.users.map((user) => `user:${user._id}`),
    ...(allUsers ? [allUsers.value] : []),
    ...search.surveys.map((survey) => `survey:${survey._id}`),
    ...(allSurveys ? [allSurveys.value] : []),
  ];
  const commandValues = [...shownActions, ...shownPlaces].map((entry) => entry.value);
  const values = commandFirst ? [...commandValues, ...recordValues] : [...recordValues, ...commandValues];
  const first = commandFirst ? best.entry.value : (values[0] ?? "");
  const key = values.join(" ");
  const [followed, setFollowed] = useState(key);
  const [selected, setSelected] = useState(first);
  if (key !== followed) {
    setFollowed(key);
    setSelected(first);
  }

  function go(href: string) {
    onDone();
    navigateGuarded(href, (target) => {
      // A record or page opened from here gets the focus on its heading, as after a save.
      if (new URL(target, location.href).pathname !== location.pathname) focusHeadingAfterNavigation();
      router.push(target);
    });
  }
  const openUser = (user: UserRecord) => {
    // The record's query starts from what the search found, as from a list: the page shows at once.
    seedUsers(client, [user]);
    go(`/users/${user._id}`);
  };

  const found = [count(search.userTotal, "user"), count(search.surveyTotal, "survey")].filter(Boolean).join(" and ");
  const status = !typed ? (
    <span>Type a name or an e-mail to find a user, a name or a code to find a survey.</span>
  ) : search.error && !search.waiting ? (
    <span className="flex flex-wrap items-center gap-2 text-rose-700">
      The search could not be done: {search.error instanceof Error ? search.error.message : "the request failed."}
      <Button kind="ghost" className="px-2 py-0.5" onClick={search.retry}>
        Retry
      </Button>
    </span>
  ) : search.waiting ? (
    <span className="flex items-center gap-2">
      <Spinner className="size-3.5" /> Searching…
    </span>
  ) : !found ? (
    <span>No users or surveys match “{typed}”.</span>
  ) : (
    <span>
      {found} {search.userTotal + search.surveyTotal === 1 ? "matches" : "match"}. Enter opens the chosen one.
    </span>
  );

  const commands = (
    <>
      <EntryGroup heading="Actions" mark="+" entries={shownActions} onSelect={go} />
      <EntryGroup heading="Pages" mark="→" entries={shownPlaces} onSelect={go} />
    </>
  );

  return (
    <Command
      label={LABEL}
      shouldFilter={false}
      vimBindings={false}
      loop
      value={selected}
      onValueChange={setSelected}
      className="flex max-h-[min(36rem,84vh)] flex-col"
    >
      <div className="flex items-center gap-2 border-b border-slate-200 px-4">
        <SearchIcon />
        <Command.Input
          value={text}
          onValueChange={setText}
          placeholder="Name, e-mail or survey code…"
          className="min-w-0 flex-1 bg-transparent py-3.5 text-base text-slate-900 placeholder:text-slate-500 focus:outline-none"
        />
        <kbd className="hidden rounded border border-slate-300 bg-slate-50 px-1.5 font-sans text-xs text-slate-600 sm:inline">
          Esc
        </kbd>
      </div>
      <p
        role="status"
        aria-live="polite"
        data-testid="palette-status"
        className="border-b border-slate-100 px-4 py-2 text-sm text-slate-600"
      >
        {status}
      </p>
      <Command.List
        label="Users, surveys and actions"
        aria-busy={search.waiting || undefined}
        className="min-h-0 flex-1 overflow-y-auto p-2 [&_[cmdk-group-heading]]:px-3 [&_[cmdk-group-heading]]:pt-2 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:tracking-wide [&_[cmdk-group-heading]]:text-slate-600 [&_[cmdk-group-heading]]:uppercase"
      >
        {commandFirst && commands}
        {search.users.length > 0 && (
          <Command.Group heading="Users">
            {search.users.map((user) => (
              <Item key={user._id} value={`user:${user._id}`} onSelect={() => openUser(user)}>
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium">{displayName(user)}</span>
                  <span className="block truncate text-xs text-slate-600">{user.email}</span>
                </span>
                {!user.isActive && <Badge>Inactive</Badge>}
              </Item>
            ))}
            {allUsers && <MoreItem entry={allUsers} onSelect={() => go(allUsers.href)} />}
          </Command.Group>
        )}
        {search.surveys.length > 0 && (
          <Command.Group heading="Surveys">
            {search.surveys.map((survey) => (
              <Item key={survey._id} value={`survey:${survey._id}`} onSelect={() => go(`/surveys/${survey._id}`)}>
                <SurveyLine survey={survey} />
              </Item>
            ))}
            {allSurveys && <MoreItem entry={allSurveys} onSelect={() => go(allSurveys.href)} />}
          </Command.Group>
        )}
        {!commandFirst && commands}
      </Command.List>
    </Command>
  );
}

function Item({ value, onSelect, children }: { value: string; onSelect: () => void; children: ReactNode }) {
  return (
    <Command.Item
      value={value}
      onSelect={onSelect}
      className="flex cursor-pointer items-center gap-3 rounded-md px-3 py-2 text-sm text-slate-800 data-[selected=true]:bg-sky-50 data-[selected=true]:text-sky-900"
    >
      {children}
    </Command.Item>
  );
}

/** Actions or pages: a mark and a label each; nothing when none matches. */
function EntryGroup({
  heading,
  mark,
  entries,
  onSelect,
}: {
  heading: string;
  mark: string;
  entries: Entry[];
  onSelect: (href: string) => void;
}) {
  if (entries.length === 0) return null;
  return (
    <Command.Group heading={heading}>
      {entries.map((entry) => (
        <Item key={entry.value} value={entry.value} onSelect={() => onSelect(entry.href)}>
          <span aria-hidden="true" className="text-slate-500">
            {mark}
          </span>
          {entry.label}
        </Item>
      ))}
    </Command.Group>
  );
}

function MoreItem({ entry, onSelect }: { entry: Entry; onSelect: () => void }) {
  return (
    <Item value={entry.value} onSelect={onSelect}>
      <span className="min-w-0 flex-1 truncate text-sky-700">{entry.label}</span>
      <span aria-hidden="true" className="text-sky-700">
        →
      </span>
    </Item>
  );
}

function SurveyLine({ survey }: { survey: SurveyRow }) {
  return (
    <>
      <span className="min-w-0 flex-1">
        <span className="block truncate font-medium">{survey.name ?? survey.code}</span>
        <span className="block truncate font-mono text-xs text-slate-600">{survey.code}</span>
      </span>
      {survey.isActive === false && <Badge>Inactive</Badge>}
    </>
  );
}

/** "1 user", "12 users"; nothing for none. */
const count = (n: number, noun: string) => (n === 0 ? "" : `${n.toLocaleString("en")} ${noun}${n === 1 ? "" : "s"}`);

function SearchIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      className="size-4 shrink-0 text-slate-500"
    >
      <circle cx="8.5" cy="8.5" r="5.5" />
      <path d="m13 13 4 4" strokeLinecap="round" />
    </svg>
  );
}
