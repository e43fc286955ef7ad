"use client";

/**
 * The Activity page: the company's audit log (docs/api.md#audit-log), filtered by kind of record,
 * action, who acted and days, every filter kept in the URL so that a view survives a reload and
 * can be shared.
 */
import { FilterChips, FiltersToggle } from "@/components/ui/data-table";
import { EVENT_ACTIONS } from "@/lib/base/schemas/event-types";
import { RESOURCE_WORDS, actionWords, filtersOf, searchOf, type AuditFilters } from "@/lib/client/audit";
import { useViewSearch } from "@/lib/client/use-view-search";
import { displayName, useUsersById } from "@/lib/client/users";
import { AUDIT_RESOURCES, AUTH_ACTIONS } from "@/lib/resources/audit/contract";
import { useState } from "react";
import { DayZoneNote } from "../day-zone-note";
import { Card, Field, PageHeader, Select, inputClass } from "../ui";
import { UserPicker } from "../users/user-picker";
import { AuditEntries, NoEntries } from "./audit-entries";

const BASE = "/activity";
const capitalised = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

export function ActivityPage() {
  const { params, show: go } = useViewSearch();
  const filters = filtersOf(params);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const show = (next: AuditFilters) => go(`${BASE}${searchOf(next)}`);
  const set = (key: keyof AuditFilters, value: string) => show({ ...filters, [key]: value || undefined });
  const actor = useUsersById(filters.actorId ? [filters.actorId] : []);
  const actorName = filters.actorId ? actor.data?.get(filters.actorId) : undefined;

  const chips = [
    ...(filters.resourceType
      ? [
          {
            key: "resourceType",
            label: `Kind: ${capitalised(RESOURCE_WORDS[filters.resourceType as keyof typeof RESOURCE_WORDS]?.one ?? filters.resourceType)}`,
          },
        ]
      : []),
    ...(filters.resourceId ? [{ key: "resourceId", label: `Record: …${filters.resourceId.slice(-6)}` }] : []),
    ...(filters.action ? [{ key: "action", label: `Action: ${actionWords(filters.action)}` }] : []),
    ...(filters.actorId
      ? [{ key: "actorId", label: `By: ${actorName ? displayName(actorName) : `…${filters.actorId.slice(-6)}`}` }]
      : []),
    ...(filters.from ? [{ key: "from", label: `From ${filters.from}` }] : []),
    ...(filters.to ? [{ key: "to", label: `To ${filters.to}` }] : []),
  ].map((chip) => ({ ...chip, onRemove: () => set(chip.key as keyof AuditFilters, "") }));

  return (
    <>
      <PageHeader
        title="Activity"
        subtitle="Who changed what and when, with each field before and after, and every sign-in, failed sign-in and sign-out. Passwords, keys and secrets are never shown."
      />
      <FiltersToggle
        open={filtersOpen}
        onToggle={() => setFiltersOpen((open) => !open)}
        applied={chips.length}
        controls="activity-filters"
      />
      <Card id="activity-filters" className={`p-4 ${filtersOpen ? "" : "hidden sm:block"}`}>
        <form
          role="search"
          aria-label="Filter the activity"
          onSubmit={(event) => event.preventDefault()}
          className="grid gap-4 sm:grid-cols-2 lg:grid-cols-[repeat(3,minmax(0,1fr))_10rem_10rem]"
        >
          <Select
            id="activity-kind"
            label="Kind of record"
            value={filters.resourceType ?? ""}
            onChange={(value) => set("resourceType", value)}
          >
            <option value="">All kinds</option>
            {AUDIT_RESOURCES.map((type) => (
              <option key={type} value={type}>
                {capitalised(RESOURCE_WORDS[type].one)}
              </option>
            ))}
          </Select>
          <Select
            id="activity-action"
            label="Action"
            value={filters.action ?? ""}
            onChange={(value) => set("action", value)}
          >
            <option value="">All actions</option>
            <optgroup label="Sign-in">
              {AUTH_ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {actionWords(action)}
                </option>
              ))}
            </optgroup>
            {AUDIT_RESOURCES.filter((type) => !filters.resourceType || type === filters.resourceType).map((type) => (
              <optgroup key={type} label={capitalised(RESOURCE_WORDS[type].one)}>
                {EVENT_ACTIONS.map((verb) => (
                  <option key={verb} value={`${type}.${verb}`}>
                    {actionWords(`${type}.${verb}`)}
                  </option>
                ))}
              </optgroup>
            ))}
          </Select>
          <Field id="activity-actor" label="Done by">
            <UserPicker
              id="activity-actor"
              label="Done by"
              value={filters.actorId ?? ""}
              onChange={(id) => set("actorId", id)}
            />
          </Field>
          <Field id="activity-from" label="From">
            <input
              id="activity-from"
              type="date"
              value={filters.from ?? ""}
              max={filters.to}
              onChange={(event) => set("from", event.target.value)}
              className={inputClass}
            />
          </Field>
          <Field id="activity-to" label="To">
            <input
              id="activity-to"
              type="date"
              value={filters.to ?? ""}
              min={filters.from}
              onChange={(event) => set("to", event.target.value)}
              className={inputClass}
            />
          </Field>
          <DayZoneNote className="sm:col-span-2" />
        </form>
      </Card>
      <FilterChips chips={chips} onClearAll={() => show({})} />
      <div className="mt-6">
        <AuditEntries
          filters={filters}
          caption="Activity, newest first; open an entry to see each field before and after"
          hrefOf={(entry) => `${BASE}${searchOf(filters, { entry: entry._id })}`}
          closeHref={`${BASE}${searchOf(filters)}`}
          empty={<NoEntries filtered={chips.length > 0} />}
        />
      </div>
    </>
  );
}
