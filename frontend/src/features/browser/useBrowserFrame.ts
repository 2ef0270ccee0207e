import { useEffect, useState } from "react";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// How often the live view asks for the browser's latest frame. The server
// keeps only the latest one, so a faster poll shows nothing more.
export const framePollMs = 1000;

// noFrameMaxMs bounds the wait after 404s in a row.
export const noFrameMaxMs = 30_000;

// FrameState is what the live view has of the browser's screen:
// loading: the first answer is not in;
// none: the server has no frame (404): no browser open yet, or closed;
// frame: the latest frame, as an object URL, and when it was painted;
// error: the last request failed (it is tried again); src is the last
// frame, still shown.
export type FrameState =
  | { kind: "off" }
  | { kind: "loading" }
  | { kind: "none" }
  | { kind: "frame"; src: string; time?: number }
  | { kind: "error"; message: string; src?: string };

// useBrowserFrame polls GET /runs/{id}/browser/frame while active (the run
// is live and its panel open), one request at a time: the next is asked a
// poll interval after the last answer, so a slow server is never asked
// twice at once. A hidden page (another tab) is not polled. Inactive, it
// asks nothing and answers {kind: "off"}. After a 404 (no browser open, or
// no frame yet) it asks again later and later, up to noFrameMaxMs, until
// wake changes (a browser call of the run started or ended): a run that
// waits for a person with no browser open is not asked every second.
export function useBrowserFrame(runId: string, active: boolean, intervalMs = framePollMs, wake = ""): FrameState {
  const { api } = useServices();
  const [state, setState] = useState<FrameState>({ kind: "loading" });

  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The object URL shown, revoked when replaced and when polling stops.
    let src: string | undefined;
    let shownTime: number | undefined;
    // 404s in a row: each doubles the wait for the next ask.
    let misses = 0;

    const drop = () => {
      if (src) URL.revokeObjectURL(src);
      src = undefined;
      shownTime = undefined;
    };
    const tick = async () => {
      if (typeof document === "undefined" || !document.hidden) {
        try {
          const f = await api.browserFrame(runId);
          if (stopped) return;
          if (!f) {
            // 404: no frame (yet, or any more). Not an error; asked again
            // when a browser call of the run moves (wake).
            drop();
            setState({ kind: "none" });
            misses++;
          } else {
            misses = 0;
            if (!src || f.time === undefined || f.time !== shownTime) {
              drop();
              src = URL.createObjectURL(f.image);
              shownTime = f.time;
              setState({ kind: "frame", src, time: f.time });
            }
          }
        } catch (err) {
          if (stopped) return;
          misses = 0;
          setState({ kind: "error", message: errorMessage(err), src });
        }
      }
      const wait = misses > 0 ? Math.min(intervalMs * 2 ** misses, noFrameMaxMs) : intervalMs;
      if (!stopped) timer = setTimeout(() => void tick(), wait);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      drop();
      setState({ kind: "loading" });
    };
  }, [api, runId, active, intervalMs, wake]);

  return active ? state : { kind: "off" };
}
