import { useRef, useState } from "react";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { FolderPicker } from "./FolderPicker";

type Props = {
  id: string; // the input's id; the picker's is derived from it
  label?: string; // "Workspace folder" unless given
  value: string;
  onChange: (path: string) => void;
  placeholder?: string;
  hint?: string;
  onError: (message: string | undefined) => void;
};

// WorkspaceField is a folder of this machine, typed or chosen with the
// folder picker (the native dialog in the desktop window).
export function WorkspaceField({ id, label = "Workspace folder", value, onChange, placeholder, hint, onError }: Props) {
  const { api } = useServices();
  const desktop = useApp((s) => !!s.info?.desktop);
  const [picking, setPicking] = useState(false);
  const browse = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const pickerId = `${id}-picker`;

  function closePicker() {
    setPicking(false);
    browse.current?.focus();
  }

  function chosen(path: string) {
    onChange(path);
    // A long path does not fit: show its end, the folder just chosen.
    requestAnimationFrame(() => {
      const el = input.current;
      if (el) el.scrollLeft = el.scrollWidth;
    });
  }

  async function pickNative() {
    onError(undefined);
    try {
      const res = await api.pickFolder(value);
      if (res.path) chosen(res.path);
    } catch (err) {
      onError(errorMessage(err));
    }
  }

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="workspace-row">
        <input
          id={id}
          ref={input}
          aria-label={label}
          type="text"
          value={value}
          title={value}
          placeholder={placeholder}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value)}
        />
        <button
          type="button"
          ref={browse}
          aria-label="Browse folders"
          aria-expanded={picking}
          aria-controls={picking ? pickerId : undefined}
          onClick={() => (desktop ? void pickNative() : picking ? closePicker() : setPicking(true))}
        >
          Browse…
        </button>
      </div>
      {picking && (
        <FolderPicker
          id={pickerId}
          start={value}
          onChoose={(p) => {
            chosen(p);
            closePicker();
          }}
          onClose={closePicker}
        />
      )}
      {hint && <p className="hint muted">{hint}</p>}
    </div>
  );
}
