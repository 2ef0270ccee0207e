import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { DirList } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import "./folderPicker.css";

type Props = {
  id: string; // the Browse button's aria-controls
  start: string; // the Workspace value: the picker opens there when it is an absolute folder
  onChoose: (path: string) => void;
  onClose: () => void;
};

// FolderPicker walks the server's disk, one folder at a time, to choose a
// workspace. It is an inline panel, not a modal: focus is not trapped, and
// Escape closes it.
export function FolderPicker({ id, start, onChoose, onClose }: Props) {
  const { list, error, loading, open } = useDirs();
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const p = start.trim();
    void open(isAbsolute(p) ? p : "", true);
    panel.current?.focus();
  }, []); // once: where the Workspace field pointed when Browse was pressed

  // A click on a folder replaces the button that had focus: keep focus in
  // the panel, so that Escape and Tab go on working.
  useEffect(() => {
    if (document.activeElement === document.body) panel.current?.focus();
  }, [list]);

  // A listing or an error can make the form taller than the sidebar, which
  // then scrolls: keep the whole panel, its buttons included, in view.
  useEffect(() => {
    panel.current?.scrollIntoView?.({ block: "nearest" });
  }, [list, error]);

  function onKeyDown(e: KeyboardEvent) {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  }

  return (
    <div
      id={id}
      ref={panel}
      className="folder-picker"
      role="dialog"
      aria-label="Choose a workspace folder"
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <div className="picker-bar">
        <button type="button" onClick={() => list?.parent && open(list.parent)} disabled={!list?.parent}>
          <UpIcon /> Up
        </button>
        <code className="picker-path" title={list?.path} data-testid="picker-path">
          {list?.path ?? "Loading…"}
        </code>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {list && <DirButtons list={list} busy={loading} onOpen={open} />}
      <div className="picker-actions">
        <button type="button" className="primary" disabled={!list || loading} onClick={() => list && onChoose(list.path)}>
          Use this folder
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}

// DirButtons lists the subfolders, one button each; the arrow keys move
// between them.
function DirButtons({ list, busy, onOpen }: { list: DirList; busy: boolean; onOpen: (path: string) => void }) {
  if (list.dirs.length === 0) return <p className="empty picker-empty">No subfolders.</p>;

  function onKeyDown(e: KeyboardEvent<HTMLUListElement>) {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const buttons = Array.from(e.currentTarget.querySelectorAll("button"));
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.min(buttons.length - 1, Math.max(0, i + (e.key === "ArrowDown" ? 1 : -1)))];
    next?.focus();
    e.preventDefault();
  }

  return (
    <>
      <ul className="picker-dirs" aria-label="Subfolders" aria-busy={busy} onKeyDown={onKeyDown}>
        {list.dirs.map((d) => (
          <li key={d.path}>
            <button type="button" className="picker-dir" title={d.link ? `${d.path} (symbolic link)` : d.path} onClick={() => onOpen(d.path)}>
              <FolderIcon />
              <span className="picker-name">{d.name}</span>
              {d.link && <LinkIcon />}
            </button>
          </li>
        ))}
      </ul>
      {list.truncated && <p className="muted picker-note">Showing the first {list.dirs.length} folders.</p>}
    </>
  );
}

// The icons are SVG, not text, so that a button's text is its name alone
// (tests and scripts find the Up button by the text "Up").
function UpIcon() {
  return (
    <svg className="picker-up" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M8 13V3M3.5 7.5 8 3l4.5 4.5" />
    </svg>
  );
}

function LinkIcon() {
  return (
    <svg className="picker-link" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M3 4v3.5a2 2 0 0 0 2 2h7.5M9.5 6.5l3 3-3 3" />
    </svg>
  );
}

function FolderIcon() {
  return (
    <svg className="picker-icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M1.5 3.5A1 1 0 0 1 2.5 2.5h3.6l1.5 1.5h5.9a1 1 0 0 1 1 1v7.5a1 1 0 0 1-1 1h-11a1 1 0 0 1-1-1z" />
    </svg>
  );
}

// useDirs loads folder listings; only the answer to the latest request is
// kept, so a slow answer cannot overwrite a newer one.
function useDirs() {
  const { api } = useServices();
  const [list, setList] = useState<DirList>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);
  useEffect(() => () => void latest.current++, []); // unmounted: drop late answers

  async function open(path: string, homeOnError = false): Promise<void> {
    const n = ++latest.current;
    setLoading(true);
    try {
      const l = await api.dirs(path);
      if (n !== latest.current) return;
      setList(l);
      setError(undefined);
    } catch (err) {
      if (n !== latest.current) return;
      if (homeOnError && path !== "") return open(""); // the start folder is gone: begin at home
      setError(errorMessage(err));
    } finally {
      if (n === latest.current) setLoading(false);
    }
  }

  return { list, error, loading, open };
}

// isAbsolute says whether p names a folder without a base: /x, ~, ~/x, or a
// Windows drive path.
function isAbsolute(p: string): boolean {
  return p.startsWith("/") || p === "~" || p.startsWith("~/") || /^[A-Za-z]:[\\/]/.test(p);
}
