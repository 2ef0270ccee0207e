import { useApp } from "../../store/context";
import { Inbox } from "../inbox/Inbox";
import { NewRunForm } from "../runs/NewRunForm";
import { RunList } from "../runs/RunList";
import { RunView } from "../transcript/RunView";
import { SignedOut } from "./SignedOut";
import { TopBar } from "./TopBar";
import "./shell.css";

// App is the page: runs on the left; the inbox and the selected run in the main area.
export function App() {
  const unauthorized = useApp((s) => s.unauthorized);
  if (unauthorized) return <SignedOut />;
  return (
    <div className="app">
      <TopBar />
      <div className="layout">
        <aside className="sidebar">
          <NewRunForm />
          <RunList />
        </aside>
        <main className="main">
          <Inbox />
          <RunView />
        </main>
      </div>
    </div>
  );
}
