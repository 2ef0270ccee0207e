// The services a component may use (the REST client, the store, the sync
// that refetches), provided once by the composition root in main.tsx.

import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { Api } from "../api/client";
import type { AppActions, AppState, AppStore } from "./store";

export type Services = {
  api: Api;
  store: AppStore;
  refreshLists: () => Promise<void>;
  refreshRun: (runId: string) => Promise<void>;
};

const ServicesContext = createContext<Services | null>(null);

export function ServicesProvider({ value, children }: { value: Services; children: ReactNode }) {
  return <ServicesContext.Provider value={value}>{children}</ServicesContext.Provider>;
}

export function useServices(): Services {
  const s = useContext(ServicesContext);
  if (!s) throw new Error("useServices outside ServicesProvider");
  return s;
}

// useApp reads the store through a selector; the component re-renders only
// when the selected value changes (by Object.is).
export function useApp<T>(selector: (s: AppState & AppActions) => T): T {
  return useStore(useServices().store, selector);
}
