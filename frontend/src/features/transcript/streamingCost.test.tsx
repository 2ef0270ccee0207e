import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { appendStreamed, type Streamed } from "../../store/reducer";
import { Markdown } from "../../ui/markdown";
import { StreamedText } from "./StreamedText";

afterEach(cleanup);

// answer is about 20 KB of what a model writes when it explains a change:
// headings, paragraphs with inline code and emphasis, lists, fenced code
// and a table, repeated.
function answer(bytes: number): string {
  const section = (i: number) =>
    [
      `## Step ${i}: the store's writer`,
      "",
      "The writer keeps **one connection** and commits in groups, so a burst of events costs one `fsync`; see [the docs](https://example.com/store) and *why* it matters.",
      "",
      "- it opens the database with `_txlock=immediate`",
      "- it retries a busy database ~~forever~~ for a bounded time",
      "- [x] tests cover the group commit",
      "",
      "```go",
      "func (s *Store) Append(ctx context.Context, evs []Event) error {",
      "\tfor _, e := range evs {",
      '\t\tif err := s.insert(ctx, e); err != nil { return fmt.Errorf("append: %w", err) }',
      "\t}",
      "\treturn nil",
      "}",
      "```",
      "",
      "| setting | value | why |",
      "| --- | :---: | --- |",
      "| journal | WAL | readers never block the writer |",
      "| busy_timeout | 5000 | a second writer waits, then fails |",
      "",
    ].join("\n");
  let s = "";
  for (let i = 1; s.length < bytes; i++) s += section(i) + "\n";
  return s.slice(0, bytes);
}

// batches cuts text into the deltas a stream delivers: a few tokens each.
function batches(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const renderText = (t: string) => t;

// streamCost renders text as it streams, one batch at a time, and returns
// what a render took, each timed alone: on average and at worst. The whole
// text is re-rendered only after every tenth batch (a sample: all 500 would
// take minutes), streamed text after each.
function streamCost(deltas: string[], view: "streamed" | "whole"): { mean: number; worst: number } {
  let s: Streamed | undefined;
  let so = "";
  const r = render(<div />);
  let total = 0;
  let worst = 0;
  let renders = 0;
  for (const [i, d] of deltas.entries()) {
    s = appendStreamed(s, d);
    so += d;
    if (view === "whole" && i % 10 !== 9) continue;
    const t0 = performance.now();
    r.rerender(view === "streamed" ? <StreamedText streamed={s} renderText={renderText} /> : <Markdown text={so} renderText={renderText} />);
    const dt = performance.now() - t0;
    total += dt;
    worst = Math.max(worst, dt);
    renders++;
  }
  r.unmount();
  return { mean: total / renders, worst };
}

describe("streaming a long answer", () => {
  it("costs a batch what the batch added, not a render of the whole text so far", { timeout: 120_000 }, () => {
    const text = answer(20_000);
    const deltas = batches(text, 40); // 500 batches of about ten tokens
    // Warm the JIT on both paths first, so neither pays for it alone.
    streamCost(batches(answer(2_000), 40), "streamed");
    streamCost(batches(answer(2_000), 40), "whole");
    const streamed = streamCost(deltas, "streamed");
    const whole = streamCost(deltas, "whole");
    const ms = (c: { mean: number; worst: number }) => `${c.mean.toFixed(2)} ms a batch, worst ${c.worst.toFixed(1)} ms`;
    console.info(`20 KB in ${deltas.length} batches: StreamedText ${ms(streamed)}; the whole text each batch ${ms(whole)}`);
    // Re-rendering the whole text grows with it (quadratic over the
    // stream); the settled parts are drawn once, so StreamedText costs a
    // batch a small and bounded part of that.
    expect(streamed.mean).toBeLessThan(whole.mean / 4);
  });
});
