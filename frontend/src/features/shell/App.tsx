import { useEffect, useState } from "react";
import { useApp } from "../../store/context";
import type { Page } from "../../store/store";
import { AgentsPage } from "../agents/AgentsPage";
import { Inbox } from "../inbox/Inbox";
import { NewRunForm } from "../runs/NewRunForm";
import { RunList } from "../runs/RunList";
import { isSettingsSection, SettingsPage } from "../settings/SettingsPage";
import { RunView } from "../transcript/RunView";
import { SignedOut } from "./SignedOut";
import { UsagePage } from "../usage/UsagePage";
import { TopBar } from "./TopBar";
import "./shell.css";

// App is the page: runs on the left; the inbox and the selected run (or the
// agents, or a settings section) in the main area. The inbox stays on every
// page: a run waiting for a person matters wherever that person is.
export function App() {
  const unauthorized = useApp((s) => s.unauthorized);
  const page = useApp((s) => s.page);
  const selected = useApp((s) => s.selectedRunId);
  // In a narrow window the runs column is a drawer over the run, so that
  // the run keeps the width; choosing a run (or a page) closes it.
  const [drawer, setDrawer] = useState(false);
  useEffect(() => setDrawer(false), [selected, page]);
  if (unauthorized) return <SignedOut />;
  return (
    <div className="app">
      <TopBar drawer={drawer} onDrawer={() => setDrawer(!drawer)} />
      <div className={`layout${drawer ? " drawer-open" : ""}`}>
        <aside className="sidebar" id="runs-column">
          <NewRunForm />
          <RunList />
          <SidebarFoot />
        </aside>
        <main className={`main main-${page === "run" ? "run" : "page"}`}>
          <Inbox />
          {page === "agents" ? (
            <AgentsPage />
          ) : page === "usage" ? (
            <UsagePage />
          ) : isSettingsSection(page) ? <SettingsPage section={page} /> : <RunView />}
        </main>
      </div>
    </div>
  );
}

// SidebarFoot leads to the agents, the usage and the settings; pressed again, back to
// the run.
function SidebarFoot() {
  const page = useApp((s) => s.page);
  return (
    <nav className="sidebar-foot" aria-label="Pages">
      <PageButton on={page === "agents"} to="agents" testId="agents-button" title="Create and edit agents">
        Agents
      </PageButton>
      <PageButton on={page === "usage"} to="usage" testId="usage-button" title="Tokens and cost by run, agent, model and day">
        Usage
      </PageButton>
      <PageButton on={isSettingsSection(page)} to="providers" testId="settings-button" title="Providers, prices, MCP servers and grants">
        Settings
      </PageButton>
    </nav>
  );
}

type PageButtonProps = { on: boolean; to: Page; testId: string; title: string; children: string };

function PageButton({ on, to, testId, title, children }: PageButtonProps) {
  const showPage = useApp((s) => s.showPage);
  return (
    <button
      type="button"
      className={on ? "active" : undefined}
      aria-pressed={on}
      data-testid={testId}
      title={title}
      onClick={() => showPage(on ? "run" : to)}
    >
      {children}
    </button>
  );
}
