//go:build !linux

package vtime

import (
	"errors"
	"time"
)

func threadNow() (time.Duration, error) {
	return 0, errors.New("vtime: thread CPU time is only measured on Linux; use cpu-scale 0 with Elapse")
}
