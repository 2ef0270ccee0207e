package config

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTakeSecrets: once taken, Steward's secrets are in no child process's
// environment, even one started with no environment of its own, and Steward
// still reads them.
func TestTakeSecrets(t *testing.T) {
	// t.Setenv: not parallel.
	secrets := map[string]string{
		"OPENAI_API_KEY":    "sk-openai-taken-0123",
		"ANTHROPIC_API_KEY": "sk-ant-taken-4567",
		"STEWARD_TOKEN":     "steward-token-taken-89ab",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("STEWARD_HOME", "/somewhere") // not a secret: stays
	if got := SecretEnv(); !slices.Equal(got, []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "STEWARD_TOKEN"}) {
		t.Errorf("SecretEnv() = %v", got)
	}
	getenv, err := TakeSecrets()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("env").Output() // inherits the process's environment
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range secrets {
		if strings.Contains(string(out), v) {
			t.Errorf("a child process inherited %s", k)
		}
		if _, ok := os.LookupEnv(k); ok {
			t.Errorf("%s is still in the environment", k)
		}
		if got := getenv(k); got != v {
			t.Errorf("getenv(%s) = %q, want %q", k, got, v)
		}
	}
	if getenv("STEWARD_HOME") != "/somewhere" || !strings.Contains(string(out), "STEWARD_HOME=/somewhere") {
		t.Error("a variable that is no secret was taken")
	}
}
