"use client";
import { useCallback, useState } from "react";
import { focusFirstError, type FieldErrors } from "./form-errors";

/**
 * The state of an admin form: its values, the error of each field, and the error of the whole
 * form (an ApiError that names no field of it). `fail` shows errors and moves the focus to the
 * first field with one, in the form's own order. `dirty` says whether anything differs from what
 * the form started with (the leave guard asks before such a form is left).
 */
export function useForm<S extends object>(
  initial: () => S,
  fields: readonly string[],
  idOf: (field: string) => string,
) {
  const [state, setState] = useState(initial);
  const [start] = useState(() => JSON.stringify(state));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>();

  const set = useCallback(
    <K extends keyof S>(key: K, value: S[K]) => setState((current) => ({ ...current, [key]: value })),
    [],
  );

  const fail = useCallback(
    (fieldErrors: FieldErrors, error?: unknown) => {
      setErrors(fieldErrors);
      setFormError(error);
      focusFirstError(fieldErrors, fields, idOf);
    },
    [fields, idOf],
  );

  const dirty = JSON.stringify(state) !== start;
  return { state, set, errors, setErrors, formError, setFormError, fail, dirty };
}
