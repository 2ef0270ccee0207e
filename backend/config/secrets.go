package config

import (
	"fmt"
	"os"
)

// tokenEnv holds the API token when the person sets it (see Token).
const tokenEnv = "STEWARD_TOKEN"

// SecretEnv names the environment variables that hold Steward's secrets:
// each provider's key and the API token.
func SecretEnv() []string {
	names := make([]string, 0, len(providers)+1)
	for _, p := range providers {
		names = append(names, p.keyEnv)
	}
	return append(names, tokenEnv)
}

// TakeSecrets removes Steward's secrets (SecretEnv) from the process's
// environment, so that no child process inherits them, whoever starts it and
// however (a program started with no environment of its own gets the
// process's), and returns a getenv that still answers them as they were.
// Call it first, before anything starts a child process or another
// goroutine reads the environment.
//
// What the kernel shows in /proc/PID/environ is the environment the process
// started with, which this cannot change: the command sandbox hides every
// process of the machine from commands for that reason.
func TakeSecrets() (func(string) string, error) {
	kept := map[string]string{}
	for _, k := range SecretEnv() {
		v, ok := os.LookupEnv(k)
		if !ok {
			continue
		}
		if err := os.Unsetenv(k); err != nil {
			return nil, fmt.Errorf("remove %s from the environment: %w", k, err)
		}
		kept[k] = v
	}
	return func(k string) string {
		if v, ok := kept[k]; ok {
			return v
		}
		return os.Getenv(k)
	}, nil
}
