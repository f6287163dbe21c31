// Command gompi-accuracy measures how well gompi predicts: it runs NAS
// kernels for real and under -virtual on a machine file that describes
// this host (or a shaped link between two network namespaces), alternating
// the two, and prints the relative error of the prediction,
// RE = predicted / real - 1, of the median time of NPB's result block
// (from its Mop/s total, which is precise where "Time in seconds" has two
// decimals):
//
//	go run ./cmd/gompi-accuracy -class A -runs 5 -format markdown
//
// Linux only, like gompirun. Run it from the gompi repository, as root
// for the network cases. See docs/accuracy.md for the method and the
// cases.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGINT, SIGTERM and SIGHUP stop the measurement; the harness then
	// takes down the run in progress, removes its network and temporary
	// files, and exits with 128 + the signal's number.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan syscall.Signal, 1)
	go func() {
		s := <-sigs
		got <- s.(syscall.Signal)
		cancel()
		for range sigs { // later signals must not kill the cleanup
		}
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	select {
	case s := <-got:
		fmt.Fprintf(os.Stderr, "gompi-accuracy: stopped by %v\n", s)
		code = 128 + int(s)
	default:
	}
	os.Exit(code)
}

// run is the whole command: it returns the exit status (0 every row
// measured, 1 a row or the setup failed, 2 a usage error).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, usageLine)
		fmt.Fprintln(stdout, "see docs/accuracy.md")
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "gompi-accuracy: %v (%s)\n", err, usageLine)
		return 2
	}
	h := &harness{opts: o, log: stderr}
	defer h.close()
	rep, err := h.measure(ctx)
	if rep != nil {
		rep.write(stdout, o.format)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gompi-accuracy: %v\n", err)
		return 1
	}
	return 0
}
