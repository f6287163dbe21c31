//go:build linux

package shm

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// CheckEnv validates the transport's settings (GOMPI_SHM_RING,
// GOMPI_SHM_SPIN, GOMPI_SHM_CMA, GOMPI_SHM_SPLIT). The launcher calls it before anything
// starts: a mistyped value made Open fail, and the job quietly fell back
// to TCP, 20 times slower.
func CheckEnv() error {
	if _, _, err := ringSetting(); err != nil {
		return err
	}
	if _, _, err := spinSetting(); err != nil {
		return err
	}
	if v := os.Getenv(CMAEnv); v != "" && v != "0" && v != "1" {
		return fmt.Errorf("shm: %s=%q: want 0 (copy through the rings) or 1 (single copy where allowed)", CMAEnv, v)
	}
	if v := os.Getenv(SplitEnv); v != "" && v != "0" && v != "1" {
		return fmt.Errorf("shm: %s=%q: want 0 (the receiver copies a large payload alone) or 1 (both ends copy, where allowed)", SplitEnv, v)
	}
	return nil
}

// ringSetting is GOMPI_SHM_RING, if set.
func ringSetting() (n uint64, set bool, err error) {
	s := os.Getenv(RingEnv)
	if s == "" {
		return 0, false, nil
	}
	n, err = strconv.ParseUint(s, 10, 64)
	if err != nil || n < minRing || n > maxRing || n&(n-1) != 0 {
		return 0, true, fmt.Errorf("shm: %s=%q: want a power of two from %d to %d", RingEnv, s, minRing, maxRing)
	}
	return n, true, nil
}

// spinSetting is GOMPI_SHM_SPIN, if set.
func spinSetting() (d time.Duration, set bool, err error) {
	s := os.Getenv(SpinEnv)
	if s == "" {
		return 0, false, nil
	}
	if d, err = time.ParseDuration(s); err != nil || d < 0 {
		return 0, true, fmt.Errorf("shm: %s=%q: want a duration such as 500us", SpinEnv, s)
	}
	return d, true, nil
}
