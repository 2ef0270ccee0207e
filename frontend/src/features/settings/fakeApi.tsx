// A fake Steward server for the agents' and settings' tests: routes by
// "METHOD path", every request recorded with its parsed body.

import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { vi } from "vitest";
import { createApi } from "../../api/client";
import { ServicesProvider } from "../../store/context";
import { createAppStore, type AppState } from "../../store/store";

export type Route = (body: unknown) => [number, unknown];
export type Call = { method: string; path: string; body?: unknown };

export const ok =
  (body: unknown): Route =>
  () => [200, body];

export const invalid =
  (message: string): Route =>
  () => [400, { error: { code: "invalid", message } }];

// renderWith renders ui against routes; a route may be replaced later
// through the returned routes object.
export function renderWith(ui: ReactNode, routes: Record<string, Route>, initial: Partial<AppState> = {}) {
  const calls: Call[] = [];
  const fetchFake = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input).replace(/^\/api\/v1/, "");
    const method = init?.method ?? "GET";
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path, body });
    const route = routes[`${method} ${path}`];
    const [status, out] = route ? route(body) : [404, { error: { code: "not_found", message: `no route ${method} ${path}` } }];
    if (status === 204) return new Response(null, { status });
    return new Response(JSON.stringify(out), { status, headers: { "Content-Type": "application/json" } });
  };
  const store = createAppStore(initial);
  const api = createApi({ fetch: fetchFake as typeof fetch });
  render(
    <ServicesProvider value={{ api, store, refreshLists: vi.fn(async () => {}), refreshRun: vi.fn(async () => {}) }}>
      {ui}
    </ServicesProvider>,
  );
  return { calls, store, routes, sent: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path) };
}
