import { describe, expect, it } from "vitest";
import type { Event } from "../../api/types";
import { emptyTranscript, reduceRun, reduceRunBatch, type ToolNode } from "../../store/reducer";
import { browserNodeIds, hasBrowserActivity, lastPageNode, parsePage, pageInfo } from "./browser";

function build(events: Omit<Event, "run_id" | "seq" | "ts">[]) {
  return reduceRunBatch(emptyTranscript("r"), events.map((e, i) => ({ run_id: "r", seq: i + 1, ts: i, ...e })));
}

const tool = (id: string, name: string, args: unknown = {}) =>
  ({ type: "node.started", node_id: id, data: { kind: "tool", label: name, tool: name, arguments: args, risk: "read" } }) as const;
const done = (id: string, output: string, is_error = false) =>
  ({ type: "node.finished", node_id: id, data: { status: "succeeded", duration_ms: 5, output, is_error } }) as const;

describe("parsePage", () => {
  it.each([
    // What the browser tools write (snapshot.go): a Go-quoted title.
    ['Clicked e4.\nThe URL changed from https://a.test/ to https://a.test/b.\nPage: "Say \\"hi\\""\nURL: https://a.test/b\n- button "Go" [ref=e1]', { url: "https://a.test/b", title: 'Say "hi"' }],
    ['Page: ""\nURL: about:blank\n(the page has no visible content)', { url: "about:blank" }],
    ["URL: https://a.test/x\nTitle: A page\n- link \"Home\" [ref=e1]", { url: "https://a.test/x", title: "A page" }],
    ["- Page URL: https://b.test/\n- Page Title: \"B\"\n", { url: "https://b.test/", title: "B" }],
    ["# title = Docs\nurl=https://c.test", { url: "https://c.test", title: "Docs" }],
    ['{"url":"https://d.test","title":"D","snapshot":"..."}', { url: "https://d.test", title: "D" }],
    ["- heading \"URL: not this\" [ref=e3]", {}],
    ["nothing here", {}],
  ])("reads %j", (text, want) => {
    expect(parsePage(text)).toEqual(want);
  });
});

describe("browser activity", () => {
  it("finds the browser calls, the page the browser is on, and falls back to browser_open's URL", () => {
    const t = build([
      tool("n1", "read_file"),
      tool("n2", "browser_open", { url: "https://a.test" }),
      done("n2", "- heading \"Welcome\""),
      tool("n3", "browser_act", { action: "click", ref: "e1" }),
      done("n3", "failed", true),
      tool("n4", "browser_screenshot"),
      done("n4", "Saved shots/n4.png"),
    ]);
    expect(browserNodeIds(t)).toEqual(["n2", "n3", "n4"]);
    expect(hasBrowserActivity(t)).toBe(true);
    const page = lastPageNode(t);
    expect(page?.id).toBe("n2");
    expect(pageInfo(page!)).toEqual({ url: "https://a.test", title: undefined });
  });

  it("counts a run with only an artifact, and not one with neither", () => {
    const plain = build([tool("n1", "read_file")]);
    expect(hasBrowserActivity(plain)).toBe(false);
    expect(hasBrowserActivity(undefined)).toBe(false);
    const withVideo = reduceRun(plain, { run_id: "r", seq: 9, ts: 9, type: "artifact.created", data: { name: "browser.mp4", kind: "video", mime: "video/mp4", size: 1 } });
    expect(hasBrowserActivity(withVideo)).toBe(true);
  });

  it("computes a run's browser calls once per node order, and again when a node is added", () => {
    const t = build([tool("n1", "browser_snapshot")]);
    const ids = browserNodeIds(t);
    const delta = reduceRun(t, { run_id: "r", seq: 5, ts: 5, type: "node.finished", node_id: "n1", data: { status: "succeeded", duration_ms: 1, output: "x" } });
    expect(browserNodeIds(delta)).toBe(ids);
    const added = reduceRun(delta, { run_id: "r", seq: 6, ts: 6, ...tool("n2", "browser_back") });
    expect(browserNodeIds(added)).toEqual(["n1", "n2"]);
    expect((added.nodes["n2"] as ToolNode).tool).toBe("browser_back");
  });
});
