//go:build race

package main

// raceBuild: this test binary runs under the race detector, so the
// programs the gate tests launch are built with it too (gateProg).
const raceBuild = true
