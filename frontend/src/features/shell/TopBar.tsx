import { useApp } from "../../store/context";
import { ConnectionStatus } from "../../ui/ConnectionStatus";

// TopBar names the program, its version and model, and whether live updates flow.
// In a narrow window it also opens the runs column, a drawer there.
export function TopBar({ drawer, onDrawer }: { drawer: boolean; onDrawer: () => void }) {
  const info = useApp((s) => s.info);
  const loadError = useApp((s) => s.loadError);
  return (
    <header className="topbar">
      <button type="button" className="topbar-runs" aria-expanded={drawer} aria-controls="runs-column" data-testid="runs-drawer" onClick={onDrawer}>
        ☰ Runs
      </button>
      <span className="brand">Steward</span>
      {info && <span className="topbar-meta">v{info.version}</span>}
      {info && (
        <span className="topbar-meta">
          {info.demo ? "no model configured: demo script" : `provider: ${info.provider}`}
        </span>
      )}
      <span className="spacer" />
      {loadError && (
        <span className="topbar-error" role="alert">
          {loadError}
        </span>
      )}
      <ConnectionStatus />
    </header>
  );
}
