"use client";

/**
 * Company settings: the zone every date filter reads its days in (docs/api.md#days), chosen from
 * the zones the browser's `Intl` knows, found by typing part of a name, each with its offset now.
 * Saving acts at once and offers Undo (docs/architecture.md, the admin pages); only an admin may
 * change it, a member sees it.
 */
import { ErrorMessage } from "@/components/ui/error-message";
import { ErrorState } from "@/components/ui/error-state";
import { useToast } from "@/components/ui/toast";
import { offsetLabel, timeZoneNames } from "@/lib/base/shared/days";
import { useCompanySettings, useUpdateCompany } from "@/lib/client/company";
import { serverFieldErrors } from "@/lib/client/form-errors";
import { useMemo, useState, type FormEvent } from "react";
import { useIsAdmin } from "./admin-shell";
import { Button, Card, describedBy, Facts, Field, inputClass, Loading, PageHeader, Spinner } from "./ui";

/** `America/Los_Angeles` is found by "los angeles", "LOS_ANG" or "america/los". */
const fold = (text: string) => text.toLowerCase().replace(/[_/]+/g, " ");

const zoneText = (zone: string) => `${zone} (${offsetLabel(zone)})`;

export function CompanySettingsPage() {
  const settings = useCompanySettings();
  return (
    <>
      <PageHeader
        title="Company settings"
        subtitle={settings.data ? `Settings of ${settings.data.name}, for every member.` : undefined}
      />
      {settings.isLoading ? (
        <Loading label="Loading the company’s settings…" />
      ) : !settings.data ? (
        <ErrorState
          error={settings.error}
          title="The company’s settings could not be loaded"
          onRetry={() => settings.refetch()}
          retrying={settings.isFetching}
        />
      ) : (
        <TimeZoneCard current={settings.data.timeZone} />
      )}
    </>
  );
}

function TimeZoneCard({ current }: { current: string }) {
  const isAdmin = useIsAdmin();
  const update = useUpdateCompany();
  const toast = useToast();
  const [search, setSearch] = useState("");
  const [chosen, setChosen] = useState(current);
  // The offsets are those of now: computed once per visit, not on every keystroke.
  const zones = useMemo(() => {
    const names = timeZoneNames();
    if (!names.includes(current)) names.unshift(current);
    return names.map((name) => ({ name, text: zoneText(name) }));
  }, [current]);
  const shown = useMemo(() => {
    const words = fold(search).split(" ").filter(Boolean);
    return zones.filter((zone) => words.every((word) => fold(zone.text).includes(word)));
  }, [zones, search]);
  const fieldError = serverFieldErrors(update.error, ["timeZone"]).fields.timeZone;

  async function save(zone: string, previous: string, undoing = false) {
    try {
      await update.mutateAsync({ timeZone: zone });
    } catch {
      // Shown below from the mutation's error, in the API's words.
      return;
    }
    setChosen(zone);
    setSearch("");
    toast.show({
      message: undoing
        ? `The company’s time zone is back to ${zone}.`
        : `The company’s time zone is now ${zone}: days are read there on every page.`,
      // Undo sets the zone before back through the API, as choosing it again would.
      action: undoing ? undefined : { label: "Undo", onClick: () => save(previous, zone, true) },
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (chosen !== current) void save(chosen, current);
  }

  return (
    <Card className="max-w-3xl p-5" aria-labelledby="time-zone-title">
      <h2 id="time-zone-title" className="text-base font-semibold text-slate-900">
        Time zone
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Every date filter reads its days in this zone: “25 November” runs from that day’s midnight to the next midnight
        there, for every member.
      </p>
      <div className="mt-4">
        <Facts items={[["Current time zone", zoneText(current)]]} />
      </div>
      {isAdmin === false ? (
        <p className="mt-4 text-sm text-slate-600">Only an admin can change the time zone.</p>
      ) : (
        <form onSubmit={submit} noValidate className="mt-5 flex flex-col gap-4">
          <Field
            id="time-zone-search"
            label="Find a time zone"
            hint="Type part of a city, a region or an offset, such as Auckland, Los Angeles or +05:30."
          >
            <input
              id="time-zone-search"
              type="search"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              autoComplete="off"
              aria-describedby="time-zone-search-hint"
              aria-controls="time-zone"
              className={inputClass}
            />
          </Field>
          <Field
            id="time-zone"
            label="Time zone"
            hint={`${shown.length} of ${zones.length} zones shown. Chosen: ${zoneText(chosen)}.`}
            error={fieldError}
          >
            <select
              id="time-zone"
              size={8}
              value={shown.some((zone) => zone.name === chosen) ? chosen : ""}
              onChange={(event) => setChosen(event.target.value)}
              {...describedBy("time-zone", fieldError, true)}
              className={`${inputClass} tabular-nums`}
            >
              {shown.map((zone) => (
                <option key={zone.name} value={zone.name}>
                  {zone.text}
                </option>
              ))}
            </select>
          </Field>
          {update.error !== null && !fieldError && (
            <ErrorMessage error={update.error} title="The time zone was not changed" />
          )}
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" kind="primary" disabled={chosen === current || update.isPending}>
              {update.isPending && <Spinner className="size-3.5" />}
              Save time zone
            </Button>
            {chosen !== current && (
              <Button onClick={() => setChosen(current)} disabled={update.isPending}>
                Keep {current}
              </Button>
            )}
          </div>
        </form>
      )}
    </Card>
  );
}
