// @vitest-environment node
import { describe, expect, it } from "vitest";
import { committed, generate } from "../../scripts/apitypes.mjs";

// The wire types the UI compiles against are what the server's document
// gives: schema.d.ts is generated from openapi.json (itself pinned to the Go
// types by the Go test TestOpenAPIFile). Stale, run make gen.
describe("schema.d.ts", () => {
  it("is what openapi-typescript makes of openapi.json", async () => {
    const fresh = await generate();
    expect(fresh.length).toBeGreaterThan(1000);
    expect(committed() === fresh, "src/api/schema.d.ts is stale: run make gen (or npm run gen) and commit it").toBe(true);
  });
});
