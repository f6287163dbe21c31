package npb

import (
	"flag"
	"fmt"
	"io"
)

// Classes are the problem classes every kernel accepts, smallest first.
const Classes = "SWABC"

// ParseClass checks a -class value: one of S, W, A, B, C (lower case is
// accepted too).
func ParseClass(s string) (byte, error) {
	if len(s) == 1 {
		c := s[0]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		for i := 0; i < len(Classes); i++ {
			if Classes[i] == c {
				return c, nil
			}
		}
	}
	return 0, fmt.Errorf("unknown class %q: want one of S, W, A, B, C", s)
}

// Flags are the command-line options common to the kernels.
type Flags struct {
	Class byte
}

// ParseFlags parses args (without the program name) for the kernel named
// name. Usage errors are returned, never printed-and-exited, so that each
// rank of a job reports the same error through its rank function.
func ParseFlags(name string, args []string) (Flags, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	class := fs.String("class", "S", "problem class: S, W, A, B or C")
	if err := fs.Parse(args); err != nil {
		return Flags{}, fmt.Errorf("%s: %v", name, err)
	}
	if fs.NArg() > 0 {
		return Flags{}, fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))
	}
	c, err := ParseClass(*class)
	if err != nil {
		return Flags{}, fmt.Errorf("%s: %v", name, err)
	}
	return Flags{Class: c}, nil
}
