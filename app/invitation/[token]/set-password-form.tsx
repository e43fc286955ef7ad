"use client";

import { useEffect, useState, type FormEvent } from "react";

type State =
  | { step: "checking" }
  | { step: "invalid" }
  | { step: "form"; email: string; error?: string; busy?: boolean }
  | { step: "done"; email: string };

const MIN_LENGTH = 8;

export function SetPasswordForm({ token }: { token: string }) {
  const [state, setState] = useState<State>({ step: "checking" });
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");

  useEffect(() => {
    let cancelled = false;
    fetch(`/api/auth/invitation?token=${encodeURIComponent(token)}`, { cache: "no-store" })
      .then((response) => (response.ok ? response.json() : { valid: false }))
      .then((status: { valid: boolean; email?: string }) => {
        if (!cancelled)
          setState(status.valid && status.email ? { step: "form", email: status.email } : { step: "invalid" });
      })
      .catch(() => !cancelled && setState({ step: "invalid" }));
    return () => {
      cancelled = true;
    };
  }, [token]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (state.step !== "form") return;
    if (password.length < MIN_LENGTH)
      return setState({ ...state, error: `The password must have at least ${MIN_LENGTH} characters.` });
    if (password !== repeat) return setState({ ...state, error: "The two passwords differ." });
    setState({ ...state, busy: true, error: undefined });
    const response = await fetch("/api/auth/invitation", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, password }),
    }).catch(() => undefined);
    if (response?.ok) return setState({ step: "done", email: state.email });
    if (response?.status === 404) return setState({ step: "invalid" });
    const body = (await response?.json().catch(() => undefined)) as
      { error?: { details?: { message: string }[]; message?: string } } | undefined;
    const message =
      body?.error?.details?.[0]?.message ?? body?.error?.message ?? "The password could not be set. Try again.";
    setState({ ...state, busy: false, error: message });
  }

  if (state.step === "checking") return <p className="text-slate-600">Checking the link…</p>;
  if (state.step === "invalid") {
    return (
      <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 p-4 text-rose-800">
        This link is invalid, has already been used or has expired. Ask an administrator for a new invitation.
      </p>
    );
  }
  if (state.step === "done") {
    return (
      <p role="status" className="rounded-md border border-emerald-200 bg-emerald-50 p-4 text-emerald-800">
        Your password is set. You can now sign in as <strong className="break-all">{state.email}</strong>.
      </p>
    );
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <p className="text-slate-700">
        Account: <strong className="break-all">{state.email}</strong>
      </p>
      <label className="flex flex-col gap-1 text-sm font-medium">
        New password
        <input
          type="password"
          autoComplete="new-password"
          minLength={MIN_LENGTH}
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          className="rounded-md border border-slate-300 px-3 py-2 font-normal focus:border-sky-500 focus:ring-2 focus:ring-sky-200 focus:outline-none"
        />
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Repeat the password
        <input
          type="password"
          autoComplete="new-password"
          minLength={MIN_LENGTH}
          required
          value={repeat}
          onChange={(event) => setRepeat(event.target.value)}
          className="rounded-md border border-slate-300 px-3 py-2 font-normal focus:border-sky-500 focus:ring-2 focus:ring-sky-200 focus:outline-none"
        />
      </label>
      {state.error && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error}
        </p>
      )}
      <button
        type="submit"
        disabled={state.busy}
        className="rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800 disabled:opacity-60"
      >
        {state.busy ? "Saving…" : "Set password"}
      </button>
    </form>
  );
}
