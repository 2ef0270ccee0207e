import "./exchange.css";
import { useState } from "react";
import { exportUrl, type ExportFormat } from "../../api/client";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

const formats: { format: ExportFormat; label: string; hint: string }[] = [
  { format: "steward", label: "Recording (.steward)", hint: "The whole run: log, file changes, screenshots and video. Opens in any Steward (Import)." },
  { format: "html", label: "Web page (.html)", hint: "One file that replays the run in any browser, offline." },
  { format: "otlp", label: "Traces (OpenTelemetry JSON)", hint: "Spans for model and tool calls, for Jaeger, Langfuse, Phoenix…" },
  { format: "video", label: "Browser video (.mp4)", hint: "The browser recording, idle time cut." },
];

// ExportMenu exports the run. In the browser each format is a download; in
// the desktop window (which has no downloads) the native save dialog asks
// where to put it. Secrets are removed by the server before anything is
// written.
export function ExportMenu({ runId }: { runId: string }) {
  const { api } = useServices();
  const desktop = useApp((s) => !!s.info?.desktop);
  const hasVideo = useApp((s) => !!s.stream.runs[runId]?.artifacts.some((a) => a.kind === "video"));
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string }>();

  const save = async (format: ExportFormat) => {
    setOpen(false);
    setNote(undefined);
    try {
      const res = await api.saveExport(runId, format);
      if (!res.cancelled) setNote({ ok: true, text: `Saved ${res.path}` });
    } catch (err) {
      setNote({ ok: false, text: errorMessage(err) });
    }
  };
  const offered = formats.filter((f) => f.format !== "video" || hasVideo);

  return (
    <div className="export-menu">
      <button type="button" aria-haspopup="menu" aria-expanded={open} data-testid="export-button" onClick={() => setOpen((o) => !o)}>
        Export
      </button>
      {open && (
        <ul className="export-list" role="menu" aria-label="Export formats">
          {offered.map((f) => (
            <li key={f.format} role="none">
              {desktop ? (
                <button type="button" role="menuitem" title={f.hint} data-testid={`export-${f.format}`} onClick={() => void save(f.format)}>
                  {f.label}
                </button>
              ) : (
                <a role="menuitem" href={exportUrl(runId, f.format)} download title={f.hint} data-testid={`export-${f.format}`} onClick={() => setOpen(false)}>
                  {f.label}
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
      {note && (
        <p className={note.ok ? "export-note muted" : "form-error"} role={note.ok ? "status" : "alert"}>
          {note.text}
        </p>
      )}
    </div>
  );
}
