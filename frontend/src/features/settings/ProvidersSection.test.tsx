import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Info, ProviderSettings, Settings } from "../../api/types";
import { invalid, ok, renderWith, type Route } from "./fakeApi";
import { SettingsPage } from "./SettingsPage";

afterEach(cleanup);

const info: Info = { version: "0.1.0", default_workspace: "/ws", provider: "openai", demo: false, note: "", sandbox: { available: true } };

const openai: ProviderSettings = {
  name: "openai",
  label: "OpenAI and compatible servers",
  base_url: "",
  model: "",
  default_base_url: "https://api.openai.com/v1",
  default_model: "gpt-4o-mini",
  key: { set: false, source: "", env_var: "OPENAI_API_KEY" },
  active: false,
};
const anthropic: ProviderSettings = {
  name: "anthropic",
  label: "Anthropic",
  base_url: "https://proxy.example/anthropic",
  model: "",
  default_base_url: "https://api.anthropic.com",
  default_model: "claude-sonnet-4-5",
  base_url_env: "ANTHROPIC_BASE_URL",
  key: { set: true, source: "env", env_var: "ANTHROPIC_API_KEY" },
  active: true,
};
const settings: Settings = {
  config_file: "/home/me/.local/share/steward/config.json",
  providers: [openai, anthropic],
  local_servers: [
    { base_url: "http://127.0.0.1:11434/v1", found: true, models: ["llama3.2", "qwen3"] },
    { base_url: "http://127.0.0.1:1234/v1", found: false, models: [] },
  ],
  prices: [],
};

function withOpenAI(p: Partial<ProviderSettings>): Settings {
  return { ...settings, providers: [{ ...openai, ...p }, anthropic] };
}

function start(extra: Record<string, Route> = {}) {
  return renderWith(
    <SettingsPage section="providers" />,
    { "GET /settings": ok(settings), "GET /info": ok(info), "GET /agents": ok({ agents: [] }), ...extra },
    { page: "providers" },
  );
}

const serversOf = () => screen.getAllByTestId("local-server");

const card = async (name: string) =>
  (await screen.findAllByTestId("provider-card")).find((c) => c.dataset["provider"] === name)!;

describe("provider cards", () => {
  it("shows each provider's settings, where its key comes from, and which one auto uses", async () => {
    start();
    const o = await card("openai");
    const a = await card("anthropic");
    expect((within(o).getByLabelText("Base URL") as HTMLInputElement).placeholder).toBe("https://api.openai.com/v1");
    expect((within(o).getByLabelText("Model") as HTMLInputElement).placeholder).toBe("gpt-4o-mini");
    expect(within(o).getByTestId("provider-key-state").textContent).toBe("no key");
    expect(within(o).queryByTestId("provider-clear-key")).toBeNull();
    expect(within(o).queryByTestId("provider-active")).toBeNull();

    const base = within(a).getByLabelText("Base URL") as HTMLInputElement;
    expect(base.readOnly).toBe(true);
    expect(base.value).toBe("https://proxy.example/anthropic");
    expect(a.textContent).toContain("Set by the environment variable ANTHROPIC_BASE_URL.");
    expect(within(a).getByTestId("provider-key-state").textContent).toBe("key from the environment ANTHROPIC_API_KEY");
    expect(within(a).getByTestId("provider-active").textContent).toBe("active for auto agents");
  });

  it("stores a typed key and never shows it again in full", async () => {
    const key = "sk-proj-0123456789abcdefwxyz";
    const { sent } = start({
      "PUT /settings/providers/openai": () => [200, withOpenAI({ key: { set: true, source: "stored", env_var: "OPENAI_API_KEY", hint: "sk-…wxyz" }, active: true })],
    });
    const o = await card("openai");
    const field = within(o).getByTestId("provider-key-input") as HTMLInputElement;
    expect(field.type).toBe("password");
    expect(field.value).toBe("");
    expect(within(o).getByLabelText("New key")).toBe(field);
    fireEvent.change(field, { target: { value: key } });
    fireEvent.click(within(o).getByTestId("provider-save"));

    await waitFor(() => expect(within(o).getByTestId("provider-key-state").textContent).toBe("key set (stored, sk-…wxyz)"));
    expect(sent("PUT", "/settings/providers/openai").map((c) => c.body)).toEqual([{ api_key: key }]);
    expect(field.value).toBe("");
    expect(document.body.innerHTML).not.toContain(key);
    expect(document.body.textContent).not.toContain(key);
    expect(within(o).getByTestId("provider-active")).toBeTruthy();
    // Auto agents may resolve differently now: agents and info are read again.
    await waitFor(() => expect(sent("GET", "/agents")).toHaveLength(1));
    expect(sent("GET", "/info")).toHaveLength(1);
  });

  it("sends only what changed, and nothing an environment variable fixes", async () => {
    const { sent } = start({
      "PUT /settings/providers/openai": (body) => [200, withOpenAI(body as Partial<ProviderSettings>)],
      "PUT /settings/providers/anthropic": (body) => [200, { ...settings, providers: [openai, { ...anthropic, ...(body as object) }] }],
    });
    const o = await card("openai");
    const save = within(o).getByTestId("provider-save") as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(within(o).getByLabelText("Base URL"), { target: { value: " http://10.0.0.5:8000/v1 " } });
    fireEvent.change(within(o).getByLabelText("Model"), { target: { value: "qwen3" } });
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    await waitFor(() => expect(sent("PUT", "/settings/providers/openai")).toHaveLength(1));
    expect(sent("PUT", "/settings/providers/openai")[0]!.body).toEqual({ base_url: "http://10.0.0.5:8000/v1", model: "qwen3" });
    // The server's answer replaces what was typed (Save is disabled while it
    // is on its way too, so wait for the value itself).
    await waitFor(() => expect((within(o).getByLabelText("Base URL") as HTMLInputElement).value).toBe("http://10.0.0.5:8000/v1"));
    expect(save.disabled).toBe(true);

    const a = await card("anthropic");
    fireEvent.change(within(a).getByLabelText("Model"), { target: { value: "claude-opus-4-1" } });
    fireEvent.click(within(a).getByTestId("provider-save"));
    await waitFor(() => expect(sent("PUT", "/settings/providers/anthropic")).toHaveLength(1));
    expect(sent("PUT", "/settings/providers/anthropic")[0]!.body).toEqual({ model: "claude-opus-4-1" });
  });

  it("shows the server's refusal and keeps what was typed", async () => {
    const message = 'invalid settings: base_url "ftp://x" must start with http:// or https://';
    start({ "PUT /settings/providers/openai": invalid(message) });
    const o = await card("openai");
    fireEvent.change(within(o).getByLabelText("Base URL"), { target: { value: "ftp://x" } });
    fireEvent.click(within(o).getByTestId("provider-save"));
    expect((await within(o).findByTestId("provider-error")).textContent).toBe(message);
    expect((within(o).getByLabelText("Base URL") as HTMLInputElement).value).toBe("ftp://x");
  });

  it("removes a stored key", async () => {
    const stored = withOpenAI({ key: { set: true, source: "stored", env_var: "OPENAI_API_KEY", hint: "sk-…wxyz" } });
    const { sent } = start({ "GET /settings": ok(stored), "PUT /settings/providers/openai": ok(settings) });
    const o = await card("openai");
    fireEvent.click(within(o).getByTestId("provider-clear-key"));
    await waitFor(() => expect(within(o).getByTestId("provider-key-state").textContent).toBe("no key"));
    expect(sent("PUT", "/settings/providers/openai")[0]!.body).toEqual({ clear_key: true });
  });

  it("tests the connection and shows the result with the models found", async () => {
    const models = Array.from({ length: 10 }, (_, i) => `model-${i}`);
    const results = [
      { ok: true, message: "", models, latency_ms: 230 },
      { ok: false, message: "401 Unauthorized: invalid API key", latency_ms: 95 },
    ];
    const { sent } = start({ "POST /settings/providers/openai/test": () => [200, results.shift()] });
    const o = await card("openai");
    fireEvent.click(within(o).getByTestId("provider-test"));
    const result = await within(o).findByTestId("provider-test-result");
    expect(result.dataset["ok"]).toBe("true");
    expect(result.textContent).toBe(
      "Connected in 230 ms10 models: model-0, model-1, model-2, model-3, model-4, model-5, model-6, model-7, and 2 more",
    );
    expect(sent("POST", "/settings/providers/openai/test")[0]!.body).toBeUndefined();

    fireEvent.click(within(o).getByTestId("provider-test"));
    await waitFor(() => expect(within(o).getByTestId("provider-test-result").dataset["ok"]).toBe("false"));
    expect(within(o).getByTestId("provider-test-result").textContent).toBe("Failed in 95 ms: 401 Unauthorized: invalid API key");
  });

  it("lists the local servers and uses one as the OpenAI base URL", async () => {
    const { sent } = start({
      "PUT /settings/providers/openai": (body) => [200, withOpenAI(body as Partial<ProviderSettings>)],
    });
    const servers = await screen.findAllByTestId("local-server");
    expect(servers.map((s) => s.textContent)).toEqual([
      "Ollama at http://127.0.0.1:11434/v1: found, models llama3.2, qwen3Use this server",
      "LM Studio at http://127.0.0.1:1234/v1: not running",
    ]);
    fireEvent.click(screen.getByRole("button", { name: "Use the server at http://127.0.0.1:11434/v1" }));
    await waitFor(() => expect(sent("PUT", "/settings/providers/openai")).toHaveLength(1));
    expect(sent("PUT", "/settings/providers/openai")[0]!.body).toEqual({ base_url: "http://127.0.0.1:11434/v1" });
    await waitFor(() => expect(within(serversOf()[0]!).getByText("OpenAI base URL")).toBeTruthy());
    expect((within(await card("openai")).getByLabelText("Base URL") as HTMLInputElement).value).toBe("http://127.0.0.1:11434/v1");
  });

  it("shows an API error when the settings cannot be read", async () => {
    renderWith(<SettingsPage section="providers" />, { "GET /settings": () => [500, { error: { code: "internal", message: "config.json is not valid JSON" } }] });
    expect((await screen.findByTestId("settings-error")).textContent).toBe("Could not read the settings: config.json is not valid JSON");
    expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy();
  });

  it("moves between the sections", async () => {
    const { store } = start();
    const nav = await screen.findByTestId("settings-nav");
    expect(within(nav).getByRole("button", { name: "Providers" }).getAttribute("aria-current")).toBe("page");
    fireEvent.click(within(nav).getByRole("button", { name: "Grants" }));
    expect(store.getState().page).toBe("grants");
  });
});
