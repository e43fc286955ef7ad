"use client";

import { useDebouncedValue } from "@/lib/client/use-debounced-value";
import { displayName, useUserList, useUsersById } from "@/lib/client/users";
import { useId, useState, type KeyboardEvent } from "react";
import { Field, Spinner, focusRing, inputClass } from "../ui";

/**
 * Picks one user by typing part of a name or e-mail (a combobox over `GET /v2/users?search=`).
 * The chosen user shows as a chip with a button to clear it.
 */
export function UserPicker({
  id,
  value,
  onChange,
  label,
  exclude = [],
}: {
  id: string;
  value: string;
  onChange: (id: string) => void;
  label: string;
  /** Users not offered. */
  exclude?: string[];
}) {
  const listId = useId();
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const chosen = useUsersById(value ? [value] : []);

  const debounced = useDebouncedValue(text.trim(), 250);

  const results = useUserList(
    { search: debounced, isActive: "all", limit: 8 },
    { enabled: open && debounced.length > 0 },
  );
  const options = debounced ? (results.data?.data.users ?? []).filter((user) => !exclude.includes(user._id)) : [];

  function choose(index: number) {
    const user = options[index];
    if (!user) return;
    onChange(user._id);
    setText("");
    setOpen(false);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setOpen(true);
      setActive((index) => Math.min(index + 1, Math.max(options.length - 1, 0)));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((index) => Math.max(index - 1, 0));
    } else if (event.key === "Enter" && open && options.length > 0) {
      event.preventDefault();
      choose(active);
    } else if (event.key === "Escape") {
      setOpen(false);
    }
  }

  if (value) {
    const user = chosen.data?.get(value);
    return (
      <div className="flex min-h-[38px] items-center gap-2 rounded-md border border-slate-300 bg-slate-50 px-2 py-1 text-sm">
        <span id={id} className="min-w-0 flex-1 truncate" title={user?.email}>
          {user ? displayName(user) : chosen.isLoading ? "Loading…" : value}
        </span>
        <button
          type="button"
          onClick={() => onChange("")}
          aria-label={`Clear ${label.toLowerCase()}`}
          className={`rounded px-1.5 text-slate-500 hover:bg-slate-200 hover:text-slate-900 ${focusRing}`}
        >
          ✕
        </button>
      </div>
    );
  }

  const expanded = open && debounced.length > 0;
  return (
    <div className="relative">
      <input
        id={id}
        type="search"
        role="combobox"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={expanded && options[active] ? `${listId}-${active}` : undefined}
        autoComplete="off"
        placeholder="Type a name or e-mail"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
        className={inputClass}
      />
      {expanded && (
        <ul
          id={listId}
          role="listbox"
          aria-label={label}
          className="absolute z-20 mt-1 max-h-64 w-full overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg"
        >
          {results.isFetching && options.length === 0 && (
            <li className="flex items-center gap-2 px-3 py-2 text-slate-500">
              <Spinner className="size-3" /> Searching…
            </li>
          )}
          {!results.isFetching && options.length === 0 && (
            <li className="px-3 py-2 text-slate-500">No user matches.</li>
          )}
          {options.map((user, index) => (
            <li
              key={user._id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                choose(index);
              }}
              onMouseEnter={() => setActive(index)}
              className={`cursor-pointer px-3 py-2 ${index === active ? "bg-sky-50 text-sky-900" : "text-slate-800"}`}
            >
              <span className="block truncate font-medium">{displayName(user)}</span>
              <span className="block truncate text-xs text-slate-500">{user.email}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Picks several users (a user's boss, peers or subordinates): the chosen ones as chips with a
 * button to remove each, and a combobox to add one more. `exclude` cannot be added (the user
 * being edited, say).
 */
export function UsersPicker({
  id,
  label,
  value,
  onChange,
  exclude = [],
  error,
}: {
  id: string;
  label: string;
  value: string[];
  onChange: (ids: string[]) => void;
  exclude?: string[];
  error?: string;
}) {
  const chosen = useUsersById(value);
  const nameOf = (userId: string) => {
    const user = chosen.data?.get(userId);
    return user ? displayName(user) : chosen.isLoading ? "Loading…" : userId;
  };
  return (
    <Field
      id={id}
      label={label}
      error={error}
      hint={value.length === 0 ? "None yet. Type a name or e-mail to add one." : undefined}
    >
      {value.length > 0 && (
        <ul aria-label={label} className="flex flex-wrap gap-1.5">
          {value.map((userId) => (
            <li
              key={userId}
              className="flex items-center gap-1 rounded-full border border-slate-200 bg-slate-50 py-0.5 pr-1 pl-3 text-sm text-slate-800"
            >
              <span className="max-w-[16rem] truncate" title={chosen.data?.get(userId)?.email}>
                {nameOf(userId)}
              </span>
              <button
                type="button"
                onClick={() => onChange(value.filter((other) => other !== userId))}
                aria-label={`Remove ${nameOf(userId)} from ${label.toLowerCase()}`}
                className={`rounded-full px-1.5 text-slate-500 hover:bg-slate-200 hover:text-slate-900 ${focusRing}`}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      <UserPicker
        id={id}
        value=""
        label={label}
        exclude={[...exclude, ...value]}
        onChange={(picked) => {
          if (picked && !value.includes(picked)) onChange([...value, picked]);
        }}
      />
    </Field>
  );
}
