// The workspace of the last run started from this browser, kept in
// localStorage so the New run form offers it again. Storage may be off
// (private mode): then the server's default workspace, and nothing is kept.

const key = "steward.lastWorkspace";

export function lastWorkspace(): string {
  try {
    return localStorage.getItem(key) ?? "";
  } catch {
    return "";
  }
}

export function rememberWorkspace(path: string): void {
  try {
    localStorage.setItem(key, path);
  } catch {
    // Not kept: fine.
  }
}
