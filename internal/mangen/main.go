// Command mangen renders a Markdown man page source to roff with go-md2man:
//
//	go run ./internal/mangen docs/gompirun.md docs/gompirun.1
//
// cmd/gompirun runs it with go generate, so the page and its source stay in
// step.
package main

import (
	"fmt"
	"os"

	"github.com/cpuguy83/go-md2man/v2/md2man"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mangen SOURCE.md OUTPUT.1")
		os.Exit(2)
	}
	src, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "mangen: %v\n", err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], md2man.Render(src), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "mangen: %v\n", err)
		os.Exit(1)
	}
}
