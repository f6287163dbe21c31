//go:build !linux

package vtime

import (
	"errors"
	"time"
)

func threadID() int { return 0 }

func threadCPUOf(int) (time.Duration, error) { return 0, errors.New("vtime: no thread CPU time") }

func threadNow() (time.Duration, error) {
	return 0, errors.New("vtime: thread CPU time is only measured on Linux; use cpu-scale 0 with Elapse")
}
