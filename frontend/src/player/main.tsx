// The player's composition root: reads the recording embedded in the page
// and renders it with the app's own views (see boot.tsx). Nothing here
// makes a request.

import "../ui/base.css";
import { StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { openPlayer } from "./boot";
import { PlayerError } from "./Player";
import { openRecording } from "./recording";

// build shows the recording's first part and reads the others after.
async function build(): Promise<ReactNode> {
  try {
    const p = await openPlayer(openRecording(document));
    document.title = p.title;
    void p.load();
    return p.element;
  } catch (err) {
    return <PlayerError message={err instanceof Error ? err.message : String(err)} />;
  }
}

const root = document.getElementById("root");
if (!root) throw new Error("the player page has no #root");
const mount = createRoot(root);
void build().then((el) => mount.render(<StrictMode>{el}</StrictMode>));
