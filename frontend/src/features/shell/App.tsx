import { useApp } from "../../store/context";
import { Inbox } from "../inbox/Inbox";
import { NewRunForm } from "../runs/NewRunForm";
import { RunList } from "../runs/RunList";
import { GrantsView } from "../settings/GrantsView";
import { RunView } from "../transcript/RunView";
import { SignedOut } from "./SignedOut";
import { TopBar } from "./TopBar";
import "./shell.css";

// App is the page: runs on the left; the inbox and the selected run (or a
// settings page) in the main area. The inbox stays on every page: a run
// waiting for a person matters wherever that person is.
export function App() {
  const unauthorized = useApp((s) => s.unauthorized);
  const page = useApp((s) => s.page);
  if (unauthorized) return <SignedOut />;
  return (
    <div className="app">
      <TopBar />
      <div className="layout">
        <aside className="sidebar">
          <NewRunForm />
          <RunList />
          <SidebarFoot />
        </aside>
        <main className="main">
          <Inbox />
          {page === "grants" ? <GrantsView /> : <RunView />}
        </main>
      </div>
    </div>
  );
}

// SidebarFoot leads to the settings pages; pressed again, back to the run.
function SidebarFoot() {
  const page = useApp((s) => s.page);
  const showPage = useApp((s) => s.showPage);
  const on = page === "grants";
  return (
    <div className="sidebar-foot">
      <button
        type="button"
        className={on ? "active" : undefined}
        aria-pressed={on}
        data-testid="grants-button"
        title="Saved approvals: approve always, deny always"
        onClick={() => showPage(on ? "run" : "grants")}
      >
        Grants
      </button>
    </div>
  );
}
