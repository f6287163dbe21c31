package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// signalError is a stage of start-up cut short by a signal.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "received " + e.sig.String() }

// runBuild runs the go command in a process group of its own, which a
// signal to gompirun (signals) ends as a whole.
func runBuild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case sig := <-signals():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return &signalError{sig.(syscall.Signal)}
	}
}

// buildError is a program that does not compile; the compiler's output is
// shown before the one-line message.
type buildError struct {
	pkg    string
	output []byte
}

func (e *buildError) Error() string { return "cannot build " + e.pkg }

// resolve turns PROGRAM into an executable path: an executable file as it
// is, a command found in PATH, or a Go package (a directory or an import
// path) built with the go command.
func resolve(prog string) (string, error) {
	st, err := os.Stat(prog)
	switch {
	case err == nil && st.Mode().IsRegular():
		if st.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s is not executable", prog)
		}
		return filepath.Abs(prog)
	case err == nil && st.IsDir():
		abs, err := filepath.Abs(prog)
		if err != nil {
			return "", err
		}
		return build(abs, abs)
	case filepath.IsAbs(prog) || strings.HasPrefix(prog, "./") || strings.HasPrefix(prog, "../") || prog == "." || prog == "..":
		return "", fmt.Errorf("%s: no such file or directory", prog)
	case !strings.Contains(prog, "/"):
		p, err := exec.LookPath(prog)
		if err != nil {
			return "", fmt.Errorf("program %q not found in PATH", prog)
		}
		return p, nil
	}
	// An import path: built relative to the current module, so the cache
	// key includes the directory it was named from.
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return build(prog, prog+"\x00"+wd)
}

// build compiles pkg into the user's cache directory, one binary per
// package. The go command relinks only when the package or one of its
// dependencies changed (it compares the binary's build ID), so a second
// run of an unchanged program starts at once.
func build(pkg, key string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building %s needs the go command in PATH", pkg)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(key + "\x00" + runtime.GOOS + "/" + runtime.GOARCH))
	dir := filepath.Join(cache, "gompi", "gompirun", hex.EncodeToString(sum[:12]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command(goCmd, "build", "-o", out, pkg)
	if filepath.IsAbs(pkg) {
		cmd.Dir = pkg
		cmd.Args[len(cmd.Args)-1] = "."
	}
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := runBuild(cmd); err != nil {
		var se *signalError
		if errors.As(err, &se) {
			return "", fmt.Errorf("%w while building %s", se, pkg)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return "", fmt.Errorf("running go build: %w", err)
		}
		return "", &buildError{pkg: pkg, output: msg.Bytes()}
	}
	// go build -o writes a library package's archive without complaint;
	// only a main package gives an executable.
	if st, err := os.Stat(out); err != nil || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not a main package: it builds no program to run", pkg)
	}
	return out, nil
}
