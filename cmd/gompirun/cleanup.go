package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gompi/gompi/transport/shm"
)

// startingProcess, when set, is called before process i of j starts; tests
// deliver a signal in the middle of start-up with it.
var startingProcess func(j *job, i int)

var (
	sigOnce sync.Once
	sigChan chan os.Signal
)

// signals is where SIGINT, SIGTERM and SIGHUP arrive, from the first call
// on (main calls it before building the program) to gompirun's end, so
// that none is missed between stages.
func signals() chan os.Signal {
	sigOnce.Do(func() {
		sigChan = make(chan os.Signal, 4)
		signal.Notify(sigChan, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	})
	return sigChan
}

// exchangeDirPrefix names gompirun's private directory (the exchange's
// socket) after its process, so that a later gompirun can tell whether
// its owner is gone.
func exchangeDirPrefix() string { return "gompirun-" + strconv.Itoa(os.Getpid()) + "-" }

// removeStale removes what jobs killed during start-up left behind: the
// shared-memory segments of processes that are gone, and the exchange
// directories of gompiruns that are gone. A running job keeps neither
// once all its processes have joined.
func removeStale() {
	shm.RemoveStale("")
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "gompirun-*-*"))
	for _, d := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), "gompirun-"), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || !ownedDir(d) || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		os.RemoveAll(d)
	}
}

// ownedDir reports whether path is a directory (not a link) of this user.
func ownedDir(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

// removeSegments deletes shared-memory segments of the job that a killed
// process could not remove itself (transport/shm names them by job id):
// those of processes killed before every peer had mapped them.
func removeSegments(job string) {
	if err := shm.Cleanup("", job); err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
	}
}
