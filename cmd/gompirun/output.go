package main

import (
	"bufio"
	"io"
	"os"
	"sync"
	"time"
)

// lineWriter forwards the processes' output to gompirun's own stdout and
// stderr a whole line at a time, so lines of different ranks never mix.
type lineWriter struct {
	mu     sync.Mutex
	stdout io.Writer // where the processes' standard output goes instead, when set (-calibrate)
}

// attach gives p a pipe for stdout and one for stderr, forwarded with
// prefix in front of each line.
func (w *lineWriter) attach(p *proc, prefix string) error {
	for _, dst := range []*os.File{os.Stdout, os.Stderr} {
		r, wr, err := os.Pipe()
		if err != nil {
			return err
		}
		if dst == os.Stdout {
			p.cmd.Stdout = wr
		} else {
			p.cmd.Stderr = wr
		}
		p.childEnds = append(p.childEnds, wr)
		p.outDone.Add(1)
		go func() {
			defer p.outDone.Done()
			defer r.Close()
			w.forward(r, dst, prefix)
		}()
	}
	return nil
}

func (w *lineWriter) forward(r io.Reader, dst *os.File, prefix string) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			w.line(dst, prefix, line)
		}
		if err != nil {
			return
		}
	}
}

// line writes one line with prefix in front.
func (w *lineWriter) line(dst *os.File, prefix string, line []byte) {
	if len(line) == 0 {
		return
	}
	if line[len(line)-1] != '\n' {
		// A process's last line without its newline stays a line of its
		// own: the next line written may be another process's.
		line = append(line, '\n')
	}
	var out io.Writer = dst
	if dst == os.Stdout && w.stdout != nil {
		out = w.stdout
	}
	w.mu.Lock()
	if prefix != "" {
		io.WriteString(out, prefix)
	}
	out.Write(line)
	w.mu.Unlock()
}

// wait gives the forwarders up to d to drain what the exited processes
// and the proxies' launchers wrote (a descendant still holding a pipe open
// is not waited for).
func (w *lineWriter) wait(procs []*proc, proxies []*proxy, d time.Duration) {
	done := make(chan struct{})
	go func() {
		for _, p := range procs {
			p.outDone.Wait()
		}
		for _, px := range proxies {
			px.errDone.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}
