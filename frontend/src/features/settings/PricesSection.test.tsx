import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../../api/types";
import { ok, renderWith, type Route } from "./fakeApi";
import { SettingsPage } from "./SettingsPage";

afterEach(cleanup);

const settings: Settings = {
  config_file: "/data/config.json",
  providers: [],
  local_servers: [],
  prices: [
    { model: "gpt-4o", input_per_mtok: 2.5, output_per_mtok: 10, cached_input_per_mtok: 1.25, source: "default" },
    { model: "gpt-4o-mini", input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075, source: "default" },
    { model: "llama3.2", input_per_mtok: 0, output_per_mtok: 0, source: "config" },
    { model: "my-model", input_per_mtok: 1, output_per_mtok: 2, source: "config" },
  ],
};

function start(extra: Record<string, Route> = {}) {
  return renderWith(<SettingsPage section="prices" />, { "GET /settings": ok(settings), ...extra }, { page: "prices" });
}

const row = (model: string) => screen.getAllByTestId("price-row").find((r) => r.dataset["model"] === model)!;
const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

describe("prices", () => {
  it("lists the prices with their source; only configured rows can be removed", async () => {
    start();
    const rows = await screen.findAllByTestId("price-row");
    expect(rows.map((r) => r.dataset["model"])).toEqual(["gpt-4o", "gpt-4o-mini", "llama3.2", "my-model"]);
    expect(field("gpt-4o input price").value).toBe("2.5");
    expect(field("gpt-4o cached input price").value).toBe("1.25");
    expect(field("llama3.2 cached input price").value).toBe("");
    expect(within(row("gpt-4o")).getByText("default")).toBeTruthy();
    expect(within(row("my-model")).getByText("config")).toBeTruthy();
    expect(within(row("gpt-4o")).queryByRole("button", { name: /Remove/ })).toBeNull();
    expect(within(row("my-model")).getByRole("button", { name: "Remove my-model" })).toBeTruthy();
  });

  it("marks numbers below 0 or not numbers, and does not save them", async () => {
    const { sent } = start();
    await screen.findAllByTestId("price-row");
    fireEvent.change(field("my-model input price"), { target: { value: "-1" } });
    expect(field("my-model input price").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByTestId("price-error").textContent).toBe("Input price must be a number, 0 or more.");
    fireEvent.change(field("gpt-4o output price"), { target: { value: "ten" } });
    expect(field("gpt-4o output price").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getAllByTestId("price-error").map((e) => e.textContent)).toEqual([
      "Output price must be a number, 0 or more.",
      "Input price must be a number, 0 or more.",
    ]);

    fireEvent.click(screen.getByTestId("prices-save"));
    expect(screen.getByTestId("prices-error").textContent).toBe("2 rows have errors: correct them to save.");
    expect(sent("PUT", "/settings/prices")).toHaveLength(0);

    // Corrected, the marks go.
    fireEvent.change(field("my-model input price"), { target: { value: "0" } });
    fireEvent.change(field("gpt-4o output price"), { target: { value: "12" } });
    expect(screen.queryAllByTestId("price-error")).toHaveLength(0);
    expect(field("my-model input price").getAttribute("aria-invalid")).toBeNull();
  });

  it("asks a new row for its model and prices when saving", async () => {
    const { sent } = start();
    await screen.findAllByTestId("price-row");
    fireEvent.click(screen.getByRole("button", { name: "Add a price" }));
    // Untouched, a new row shows no errors yet.
    expect(screen.queryAllByTestId("price-error")).toHaveLength(0);
    fireEvent.click(screen.getByTestId("prices-save"));
    expect(screen.getByTestId("price-error").textContent).toBe("Name the model. Input price is empty. Output price is empty.");
    fireEvent.change(field("Model name"), { target: { value: "gpt-4o" } });
    expect(screen.getByTestId("price-error").textContent).toBe("gpt-4o is in the table already: edit that row. Input price is empty. Output price is empty.");
    expect(sent("PUT", "/settings/prices")).toHaveLength(0);
  });

  it("saves the configured rows, edited defaults and new rows, not the untouched defaults", async () => {
    const answer: Settings = {
      ...settings,
      prices: [
        { model: "gpt-4o", input_per_mtok: 2, output_per_mtok: 10, cached_input_per_mtok: 1.25, source: "config" },
        { model: "gpt-4o-mini", input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075, source: "default" },
        { model: "llama3.2", input_per_mtok: 0, output_per_mtok: 0, source: "config" },
        { model: "qwen3", input_per_mtok: 0.1, output_per_mtok: 0.2, cached_input_per_mtok: 0.05, source: "config" },
      ],
    };
    const { sent } = start({ "PUT /settings/prices": ok(answer) });
    await screen.findAllByTestId("price-row");
    fireEvent.change(field("gpt-4o input price"), { target: { value: "2" } });
    expect(within(row("gpt-4o")).getByText("default, edited")).toBeTruthy();
    // An edit taken back is a default again.
    fireEvent.change(field("gpt-4o-mini output price"), { target: { value: "1" } });
    fireEvent.click(screen.getByRole("button", { name: "Reset gpt-4o-mini to the default" }));
    expect(field("gpt-4o-mini output price").value).toBe("0.6");
    fireEvent.click(screen.getByRole("button", { name: "Remove my-model" }));
    fireEvent.click(screen.getByRole("button", { name: "Add a price" }));
    fireEvent.change(field("Model name"), { target: { value: " qwen3 " } });
    fireEvent.change(field("qwen3 input price"), { target: { value: "0.1" } });
    fireEvent.change(field("qwen3 output price"), { target: { value: ".2" } });
    fireEvent.change(field("qwen3 cached input price"), { target: { value: "0.05" } });
    fireEvent.click(screen.getByTestId("prices-save"));

    await waitFor(() => expect(sent("PUT", "/settings/prices")).toHaveLength(1));
    expect(sent("PUT", "/settings/prices")[0]!.body).toEqual({
      prices: {
        "gpt-4o": { input_per_mtok: 2, output_per_mtok: 10, cached_input_per_mtok: 1.25 },
        "llama3.2": { input_per_mtok: 0, output_per_mtok: 0 },
        qwen3: { input_per_mtok: 0.1, output_per_mtok: 0.2, cached_input_per_mtok: 0.05 },
      },
    });
    // The server's answer is the table now.
    await waitFor(() => expect(within(row("gpt-4o")).getByText("config")).toBeTruthy());
    expect(screen.getAllByTestId("price-row").map((r) => r.dataset["model"])).toEqual(["gpt-4o", "gpt-4o-mini", "llama3.2", "qwen3"]);
    expect(screen.getByRole("status").textContent).toContain("Prices saved.");
  });

  it("shows the server's refusal", async () => {
    start({ "PUT /settings/prices": () => [400, { error: { code: "invalid", message: "invalid settings: price of x is negative" } }] });
    await screen.findAllByTestId("price-row");
    fireEvent.click(screen.getByTestId("prices-save"));
    expect((await screen.findByTestId("prices-error")).textContent).toBe("invalid settings: price of x is negative");
  });

  it("says what to do when the table is empty", async () => {
    start({ "GET /settings": ok({ ...settings, prices: [] }) });
    expect((await screen.findByTestId("prices-empty")).textContent).toContain("add a row for each model");
  });
});
