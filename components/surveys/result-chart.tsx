"use client";

/**
 * One question's figures as a bar chart (Recharts), coloured from the theme's CSS variables so it
 * reads in light and dark alike, and the same figures as a table for screen readers and copying.
 */
import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { focusRing } from "../ui";

export interface ChartRow {
  label: string;
  count: number;
}

const tick = { fill: "var(--color-slate-600)", fontSize: 12 };
const axis = "var(--color-slate-300)";

/**
 * `bars`: one horizontal bar per option (long labels fit); `columns`: a histogram. `answered`:
 * the answers to the question, of which each row's share is given (several options of one
 * multiple-choice answer each count).
 */
export function ResultChart({
  rows,
  shape,
  title,
  labelHeader,
  answered,
}: {
  rows: ChartRow[];
  shape: "bars" | "columns";
  title: string;
  labelHeader: string;
  answered: number;
}) {
  const summary = `${shape === "bars" ? "Bar chart" : "Histogram"} of ${title}: ${rows.map((row) => `${row.label} ${row.count}`).join(", ")}.`;
  const height = shape === "bars" ? Math.max(120, rows.length * 36 + 40) : 220;
  const longest = Math.max(...rows.map((row) => row.label.length), 4);
  return (
    <div>
      <div role="img" aria-label={summary} style={{ height }} className="w-full">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={rows}
            layout={shape === "bars" ? "vertical" : "horizontal"}
            margin={{ top: shape === "columns" ? 20 : 4, right: shape === "bars" ? 40 : 16, bottom: 4, left: 4 }}
            accessibilityLayer={false}
          >
            <CartesianGrid
              stroke="var(--color-slate-200)"
              horizontal={shape === "columns"}
              vertical={shape === "bars"}
            />
            {shape === "bars" ? (
              <>
                <XAxis type="number" allowDecimals={false} tick={tick} stroke={axis} />
                <YAxis
                  type="category"
                  dataKey="label"
                  tick={tick}
                  stroke={axis}
                  width={Math.min(160, longest * 7 + 12)}
                  interval={0}
                />
              </>
            ) : (
              <>
                <XAxis type="category" dataKey="label" tick={tick} stroke={axis} interval="preserveStartEnd" />
                <YAxis type="number" allowDecimals={false} tick={tick} stroke={axis} width={40} />
              </>
            )}
            <Tooltip
              cursor={{ fill: "var(--color-slate-100)" }}
              contentStyle={{
                background: "var(--color-white)",
                border: "1px solid var(--color-slate-200)",
                borderRadius: 6,
                color: "var(--color-slate-900)",
              }}
              labelStyle={{ color: "var(--color-slate-900)" }}
              itemStyle={{ color: "var(--color-slate-800)" }}
            />
            <Bar dataKey="count" name="Answers" fill="var(--color-sky-600)" radius={3} isAnimationActive={false}>
              {/* Each bar carries its count, so the figures read without hovering. */}
              <LabelList
                dataKey="count"
                position={shape === "bars" ? "right" : "top"}
                fill="var(--color-slate-700)"
                fontSize={12}
              />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="mt-2 text-sm">
        <summary className={`w-fit cursor-pointer rounded-sm text-slate-700 hover:text-slate-900 ${focusRing}`}>
          Show as a table
        </summary>
        <table className="mt-2 w-full max-w-xl text-left text-sm" data-testid="result-table">
          <caption className="sr-only">{title}</caption>
          <thead className="text-xs tracking-wide text-slate-500 uppercase">
            <tr>
              <th scope="col" className="py-1 pr-4">
                {labelHeader}
              </th>
              <th scope="col" className="py-1 pr-4 text-right">
                Answers
              </th>
              <th scope="col" className="py-1 text-right">
                Share
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row" className="py-1 pr-4 font-normal text-slate-800">
                  {row.label}
                </th>
                <td className="py-1 pr-4 text-right text-slate-800 tabular-nums">{row.count.toLocaleString("en")}</td>
                <td className="py-1 text-right text-slate-600 tabular-nums">
                  {answered ? `${Math.round((row.count / answered) * 100)}%` : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
