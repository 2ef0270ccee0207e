import { useRef, useState } from "react";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { FolderPicker } from "./FolderPicker";

type Props = {
  id: string; // the input's id; the picker's is derived from it
  value: string;
  onChange: (path: string) => void;
  placeholder?: string;
  hint: string;
  onError: (message: string | undefined) => void;
};

// WorkspaceField is a folder of this machine, typed or chosen with the
// folder picker (the native dialog in the desktop window).
export function WorkspaceField({ id, value, onChange, placeholder, hint, onError }: Props) {
  const { api } = useServices();
  const desktop = useApp((s) => !!s.info?.desktop);
  const [picking, setPicking] = useState(false);
  const browse = useRef<HTMLButtonElement>(null);
  const pickerId = `${id}-picker`;

  function closePicker() {
    setPicking(false);
    browse.current?.focus();
  }

  async function pickNative() {
    onError(undefined);
    try {
      const res = await api.pickFolder(value);
      if (res.path) onChange(res.path);
    } catch (err) {
      onError(errorMessage(err));
    }
  }

  return (
    <div className="field">
      <label htmlFor={id}>Workspace folder</label>
      <div className="workspace-row">
        <input
          id={id}
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
            onChange(p);
            closePicker();
          }}
          onClose={closePicker}
        />
      )}
      <p className="hint muted">{hint}</p>
    </div>
  );
}
