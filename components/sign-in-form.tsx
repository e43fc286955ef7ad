"use client";

import { ErrorMessage } from "@/components/ui/error-message";
import { read } from "@/lib/client/api";
import { serverFieldErrors, zodFieldErrors, type FieldErrors, type FieldTexts } from "@/lib/client/form-errors";
import { rememberToken, safeReturnPath } from "@/lib/client/session";
import { useHydrated } from "@/lib/client/use-hydrated";
import type { AccessTokenResponse } from "@/lib/resources/auth/schemas";
import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { z } from "zod";
import { Button, Card, Field, describedBy, inputClass } from "./ui";

const FIELDS = ["email", "password"] as const;
const TEXTS: FieldTexts = { email: { noun: "your e-mail" }, password: { noun: "your password" } };
/** Only what the form can tell before asking the server: both fields are filled in. */
const Filled = z.object({ email: z.string().trim().min(1), password: z.string().min(1) });
const inputId = (field: string) => `sign-in-${field}`;

export function SignInForm() {
  const router = useRouter();
  const params = useSearchParams();
  const returnTo = safeReturnPath(params.get("next"));
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form itself: what was typed before the page came alive counts too.
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    setError(undefined);
    const filled = Filled.safeParse({ email, password });
    if (!filled.success) return show(zodFieldErrors(filled.error, FIELDS, TEXTS, { email, password }).fields);
    setFieldErrors({});
    setBusy(true);
    try {
      const response = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password }),
        credentials: "same-origin",
        cache: "no-store",
      });
      rememberToken(await read<AccessTokenResponse>(response));
      router.replace(returnTo);
    } catch (failure) {
      const { fields } = serverFieldErrors(failure, FIELDS, TEXTS);
      setBusy(false);
      if (Object.keys(fields).length > 0) show(fields);
      else setError(failure);
    }
  }

  function show(errors: FieldErrors) {
    setFieldErrors(errors);
    const first = FIELDS.find((field) => errors[field]);
    if (first) document.getElementById(inputId(first))?.focus();
  }

  return (
    <Card className="p-6">
      {params.get("next") && !error && (
        <p role="status" className="mb-4 rounded-md bg-sky-50 px-3 py-2 text-sm text-sky-900">
          Sign in to continue; you will be taken back to the page you were on.
        </p>
      )}
      <form onSubmit={submit} method="post" className="flex flex-col gap-4" noValidate>
        <Field id="sign-in-email" label="E-mail" error={fieldErrors.email}>
          <input
            id="sign-in-email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            name="email"
            {...describedBy("sign-in-email", fieldErrors.email)}
            className={inputClass}
          />
        </Field>
        <Field id="sign-in-password" label="Password" error={fieldErrors.password}>
          <input
            id="sign-in-password"
            type="password"
            autoComplete="current-password"
            required
            name="password"
            {...describedBy("sign-in-password", fieldErrors.password)}
            className={inputClass}
          />
        </Field>
        {error !== undefined && <ErrorMessage error={error} title="Could not sign in" />}
        <Button type="submit" kind="primary" disabled={busy || !hydrated} className="mt-1 w-full">
          {busy ? "Signing in…" : "Sign in"}
        </Button>
      </form>
    </Card>
  );
}
