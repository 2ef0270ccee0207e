// The player's composition root: reads the recording embedded in the page
// and renders it with the app's own views (see boot.tsx). Nothing here
// makes a request.

import "../ui/base.css";
import { StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { createPlayer } from "./boot";
import { PlayerError } from "./Player";
import { openRecording } from "./recording";

// build shows the recording's first part and reads the others after.
function build(): ReactNode {
  try {
    const p = createPlayer(openRecording(document));
    document.title = p.title;
    void p.load();
    return p.element;
  } catch (err) {
    return <PlayerError message={err instanceof Error ? err.message : String(err)} />;
  }
}

const root = document.getElementById("root");
if (!root) throw new Error("the player page has no #root");
createRoot(root).render(<StrictMode>{build()}</StrictMode>);
