import { describe, expect, it } from "vitest";
import type { components } from "./schema";
import doc from "./openapi.json";
import { runLevelTypes } from "./types";

// runLevelTypes is read at run time, so it is a list in the UI; it must be
// the server's (event.Event.IsRunLevel), which the document gives.
describe("runLevelTypes", () => {
  it("is the document's RunLevelEventType", () => {
    const want: components["schemas"]["RunLevelEventType"][] = doc.components.schemas.RunLevelEventType.enum as never;
    expect([...runLevelTypes].sort()).toEqual([...want].sort());
  });
});
