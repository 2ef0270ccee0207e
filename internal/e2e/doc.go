// Package e2e holds Steward's end-to-end tests: black-box tests of the
// binary (bin/steward, or $STEWARD_BIN) that start it as a person would,
// drive the UI in headless Chromium, talk to it over HTTP and WebSocket,
// answer its model calls from loopback servers that speak the providers'
// wire formats, and kill it to check recovery. They import nothing of the
// program but its test helpers: what they check is what a user sees.
package e2e
