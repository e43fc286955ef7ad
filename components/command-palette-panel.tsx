"use client";

/**
 * The command palette's panel (components/command-palette.tsx opens it): cmdk's combobox and
 * listbox over the users' and surveys' own `/v2` searches, the main actions and every page of the
 * menu. Loaded on the palette's first opening, so no page pays for cmdk before it is used.
 */
import { focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { navigateGuarded } from "@/lib/client/history-guard";
import { usePaletteSearch } from "@/lib/client/palette";
import { displayName, seedUsers } from "@/lib/client/users";
import type { SurveyList } from "@/lib/resources/surveys/contract";
import type { UserRecord } from "@/lib/resources/users/contract";
import { useQueryClient } from "@tanstack/react-query";
import { Command, defaultFilter } from "cmdk";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { PALETTE_LABEL as LABEL, SearchIcon, type PaletteLink } from "./palette-parts";
import { Badge, Button, Spinner } from "./ui";

type SurveyRow = SurveyList["data"]["surveys"][number];

/** cmdk's score of a match at the starts of words (a scattered one scores below 0.2; see `defaultFilter`). */
const STRONG_MATCH = 0.8;

interface Entry {
  value: string;
  href: string;
  label: string;
  keywords?: string[];
}

export default function Palette({
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
          // The panel may load after the dialog opened: its input takes the focus as it appears.
          autoFocus
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
