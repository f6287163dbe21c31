package main

import (
	"os"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

func main() {
	mpi.Main(func(c *mpi.Comm) error {
		f, err := npb.ParseFlags("mg", os.Args[1:])
		if err != nil {
			return err
		}
		_, err = Run(c, f.Class, os.Stdout, Options{Timers: npb.TimerFlagSet()})
		return err
	})
}
