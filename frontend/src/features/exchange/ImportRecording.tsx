import "./exchange.css";
import { useRef, useState, type DragEvent } from "react";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// ImportRecording takes a .steward recording, chosen or dropped on it, and
// opens the read-only run the server makes of it. A damaged or tampered
// file is refused with the server's reason, and nothing is imported.
// What importing means, said where a recording is brought in; the imported
// run says it again (origin.ts).
const foreignHint = "A recording is someone else's content: it is checked, then shown read-only. Nothing in it becomes a setting here.";

export function ImportRecording() {
  const { api, store, refreshLists } = useServices();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const [error, setError] = useState<string>();

  const take = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError(undefined);
    try {
      const run = await api.importRecording(file);
      await refreshLists();
      store.getState().select(run.id);
    } catch (err) {
      setError(`${file.name}: ${errorMessage(err)}`);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = "";
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void take(e.dataTransfer.files[0]);
  };

  return (
    <div
      className={`import-zone${over ? " over" : ""}`}
      title={foreignHint}
      data-testid="import-zone"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <button type="button" className="link" disabled={busy} onClick={() => input.current?.click()}>
        {busy ? "Importing…" : "Import a recording…"}
      </button>
      <span className="muted"> or drop a .steward file here</span>
      {/* Said as a file is brought here, and on hover: at rest the two
          lines took half the room the run list had under the New run form. */}
      {over && <p className="hint muted">{foreignHint}</p>}
      <input
        ref={input}
        type="file"
        accept=".steward,application/zip"
        hidden
        aria-label="Recording to import"
        data-testid="import-file"
        onChange={(e) => void take(e.target.files?.[0])}
      />
      {error && (
        <p className="form-error" role="alert" data-testid="import-error">
          {error}
        </p>
      )}
    </div>
  );
}
