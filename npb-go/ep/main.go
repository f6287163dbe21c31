package main

import (
	"errors"
	"os"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

func main() {
	mpi.Main(func(c *mpi.Comm) error {
		f, err := npb.ParseFlags("ep", os.Args[1:])
		if err != nil {
			return err
		}
		res, _, err := Run(c, f.Class, os.Stdout)
		if err != nil {
			return err
		}
		if c.Rank() == 0 && !res.Verified {
			return errors.New("ep: verification failed")
		}
		return nil
	})
}
