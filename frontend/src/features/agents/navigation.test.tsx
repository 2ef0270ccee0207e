import { cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../../api/types";
import { App } from "../shell/App";
import { ok, renderWith } from "../settings/fakeApi";

afterEach(cleanup);

const settings: Settings = { config_file: "/data/config.json", providers: [], local_servers: [], prices: [] };

describe("the sidebar's pages", () => {
  it("leads to the agents and to each section of the settings, and back to the run", async () => {
    const { store } = renderWith(<App />, {
      "GET /agents": ok({ agents: [] }),
      "GET /info": ok({ version: "0", default_workspace: "/ws", provider: "script", demo: true, note: "" }),
      "GET /tools": ok({ tools: [] }),
      "GET /settings": ok(settings),
      "GET /grants": ok({ grants: [] }),
    });
    const pages = screen.getByRole("navigation", { name: "Pages" });

    fireEvent.click(within(pages).getByRole("button", { name: "Agents" }));
    expect(await screen.findByTestId("agents-empty")).toBeTruthy();
    expect(within(pages).getByRole("button", { name: "Agents" }).getAttribute("aria-pressed")).toBe("true");

    fireEvent.click(within(pages).getByRole("button", { name: "Settings" }));
    expect(store.getState().page).toBe("providers");
    expect(await screen.findByRole("region", { name: "Providers" })).toBeTruthy();
    const nav = screen.getByTestId("settings-nav");
    fireEvent.click(within(nav).getByRole("button", { name: "Prices" }));
    expect(await screen.findByTestId("prices-empty")).toBeTruthy();
    fireEvent.click(within(nav).getByRole("button", { name: "Grants" }));
    expect(await screen.findByTestId("grants-empty")).toBeTruthy();
    expect(within(pages).getByRole("button", { name: "Settings" }).getAttribute("aria-pressed")).toBe("true");

    fireEvent.click(within(pages).getByRole("button", { name: "Settings" }));
    expect(store.getState().page).toBe("run");
  });
});
