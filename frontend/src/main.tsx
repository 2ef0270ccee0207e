// The composition root: builds the store, the API client, the sync and the
// notifications once, then renders the app with them.

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createApi } from "./api/client";
import { browserNodeIds } from "./features/browser/browser";
import { graphOf } from "./features/graph/useRunGraph";
import { startNotifications } from "./features/inbox/notifications";
import { App } from "./features/shell/App";
import { kindsOf } from "./features/transcript/Transcript";
import { ServicesProvider } from "./store/context";
import { bindHash } from "./store/hash";
import { createAppStore } from "./store/store";
import { startSync } from "./store/sync";
import "./ui/base.css";

const store = createAppStore();
const api = createApi({ onUnauthorized: () => store.getState().setUnauthorized() });
bindHash(store);
// A run's history is read in pages and its live events are applied a frame
// at a time: a run of thousands of events then costs a few renders, not one
// per event. What the views read of a whole run is read before each commit
// of its history, in tasks of their own.
const sync = startSync(api, store, { frameBatching: true, pageHistory: true, prepare: [graphOf, kindsOf, browserNodeIds] });
startNotifications(store);

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <ServicesProvider value={{ api, store, refreshLists: sync.refreshLists, refreshRun: sync.refreshRun }}>
      <App />
    </ServicesProvider>
  </StrictMode>,
);
