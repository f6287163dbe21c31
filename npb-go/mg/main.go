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
		_, err = Run(c, f.Class, os.Stdout, Options{Timers: timerFlag()})
		return err
	})
}

// timerFlag is the reference's check_timer_flag: per-phase timers are on
// when a file timer.flag exists in the working directory or NPB_TIMER_FLAG
// is set to a value other than 0/false.
func timerFlag() bool {
	if v, ok := os.LookupEnv("NPB_TIMER_FLAG"); ok {
		return v != "" && v != "0" && v != "false" && v != "FALSE"
	}
	_, err := os.Stat("timer.flag")
	return err == nil
}
