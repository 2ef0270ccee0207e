// surface names where answers are given from, for the audit log: the
// desktop window opens the UI with ?surface=desktop (the server keeps that
// parameter when it trades the token for the session cookie); a browser tab
// is "web". Read once: the app never navigates away from its first URL.
const param = typeof location === "undefined" ? null : new URLSearchParams(location.search).get("surface");

export const surface: "web" | "desktop" = param === "desktop" ? "desktop" : "web";
