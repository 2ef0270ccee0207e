// The price table as the Prices section edits it: one row per model, the
// numbers held as typed. Only configured rows (and defaults a person changed)
// are sent: the defaults stay underneath on the server.

import type { Price, PriceEntry, PricesUpdate } from "../../api/types";

export type PriceValues = { input: string; output: string; cached: string };

export type PriceRow = PriceValues & {
  key: number;
  model: string;
  // default and config as the server said; new for a row added here.
  source: "default" | "config" | "new";
  original: PriceValues; // as read, to tell an edited default
  touched: boolean; // changed here: its errors show
};

export type RowErrors = Partial<Record<"model" | keyof PriceValues, string>>;

let nextKey = 1;

const text = (n: number | undefined) => (n === undefined ? "" : String(n));

export function rowsOf(prices: readonly PriceEntry[]): PriceRow[] {
  return prices.map((p) => {
    const values = { input: text(p.input_per_mtok), output: text(p.output_per_mtok), cached: text(p.cached_input_per_mtok) };
    return { key: nextKey++, model: p.model, source: p.source, ...values, original: values, touched: false };
  });
}

export function newRow(): PriceRow {
  const values = { input: "", output: "", cached: "" };
  return { key: nextKey++, model: "", source: "new", ...values, original: values, touched: false };
}

// edited is a default row whose numbers were changed here: it is saved as a
// configured price.
export function edited(r: PriceRow): boolean {
  return r.source === "default" && (r.input !== r.original.input || r.output !== r.original.output || r.cached !== r.original.cached);
}

// amount reads a price: a number of dollars, 0 or more; undefined when empty.
function amount(s: string): number | undefined | "bad" {
  const t = s.trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 ? n : "bad";
}

// validate returns the errors of each row by its key; a row without errors
// is absent.
export function validate(rows: readonly PriceRow[]): Map<number, RowErrors> {
  const out = new Map<number, RowErrors>();
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(r.model.trim(), (seen.get(r.model.trim()) ?? 0) + 1);
  for (const r of rows) {
    const e: RowErrors = {};
    const model = r.model.trim();
    if (model === "") e.model = "Name the model.";
    // A name typed twice is marked on the row added here, not on the one read.
    else if (r.source === "new" && (seen.get(model) ?? 0) > 1) e.model = `${model} is in the table already: edit that row.`;
    for (const [k, label] of [
      ["input", "Input"],
      ["output", "Output"],
    ] as const) {
      const v = amount(r[k]);
      if (v === undefined) e[k] = `${label} price is empty.`;
      else if (v === "bad") e[k] = `${label} price must be a number, 0 or more.`;
    }
    if (amount(r.cached) === "bad") e.cached = "Cached input price must be a number, 0 or more (or empty).";
    if (Object.keys(e).length > 0) out.set(r.key, e);
  }
  return out;
}

// toUpdate is the PUT body: the configured and new rows, and the defaults
// that were edited. Call it only when validate found nothing.
export function toUpdate(rows: readonly PriceRow[]): PricesUpdate {
  const prices: Record<string, Price> = {};
  for (const r of rows) {
    if (r.source === "default" && !edited(r)) continue;
    const p: Price = { input_per_mtok: Number(r.input.trim()), output_per_mtok: Number(r.output.trim()) };
    const cached = amount(r.cached);
    if (typeof cached === "number") p.cached_input_per_mtok = cached;
    prices[r.model.trim()] = p;
  }
  return { prices };
}
