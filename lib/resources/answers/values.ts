/**
 * The value an answer may hold, by its question's type (docs/api.md#answers), and how a stored
 * value is shown: a `date` answer is stored as a Date (so the database can order and bucket it)
 * and leaves the service as an ISO date-time.
 */
import { multiLineText } from "@/lib/base/schemas/common";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import { z } from "zod";
import { MAX_RATING, MAX_TEXT_ANSWER, MIN_RATING, type AnswerValue } from "./contract";

const dateValue = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: "must be an ISO date (2026-01-31) or date-time (2026-01-31T08:15:00.000Z)",
  })
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), { error: "must be a real date" });

const SCHEMAS: Record<Exclude<QuestionType, "single_choice" | "multiple_choice">, z.ZodType> = {
  text: multiLineText({ max: MAX_TEXT_ANSWER }),
  number: z.number({ error: "must be a number" }).refine(Number.isFinite, { error: "must be a finite number" }),
  date: z.string({ error: "must be an ISO date or date-time string" }).pipe(dateValue),
  yes_no: z.boolean({ error: "must be true or false" }),
  rating: z
    .number({ error: `must be a whole number from ${MIN_RATING} to ${MAX_RATING}` })
    .int({ error: `must be a whole number from ${MIN_RATING} to ${MAX_RATING}` })
    .min(MIN_RATING, { error: `must be at least ${MIN_RATING}` })
    .max(MAX_RATING, { error: `must be at most ${MAX_RATING}` }),
};

/** The schema of a value for a question of `type` with `options`; its output is what is stored. */
export function valueSchema(type: QuestionType, options: string[]): z.ZodType {
  const listed = `one of ${options.map((option) => JSON.stringify(option)).join(", ")}`;
  if (type === "single_choice") {
    return z
      .string({ error: `must be ${listed}` })
      .refine((value) => options.includes(value), { error: `must be ${listed}` });
  }
  if (type === "multiple_choice") {
    return z
      .array(
        z
          .string({ error: `each must be ${listed}` })
          .refine((value) => options.includes(value), { error: `must be ${listed}` }),
        { error: `must be an array of ${listed}` },
      )
      .min(1, { error: "must hold at least one option" })
      .refine((values) => new Set(values).size === values.length, { error: "must not name an option twice" });
  }
  return SCHEMAS[type];
}

/** A stored value as the API shows it. */
export const shownValue = (value: unknown): AnswerValue | null =>
  value instanceof Date ? value.toISOString() : ((value ?? null) as AnswerValue | null);
