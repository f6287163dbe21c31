package main

import (
	"encoding/csv"
	"os"
	"strconv"
)

// csvLog writes every run as it ends (-o FILE), so that an interrupted
// measurement keeps what it had.
type csvLog struct {
	f *os.File
	w *csv.Writer
}

func createCSV(path string) (*csvLog, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	l := &csvLog{f: f, w: csv.NewWriter(f)}
	l.w.Write([]string{"case", "kernel", "class", "ranks", "side", "run", "seconds", "mops", "error"})
	l.w.Flush()
	return l, l.w.Error()
}

// add records one run; seconds and mops are empty when err is set.
func (l *csvLog) add(c caseSpec, kernel, class string, np int, side string, run int, res npbResult, err error) {
	if l == nil {
		return
	}
	secs, mops, why := strconv.FormatFloat(res.Seconds, 'f', -1, 64), strconv.FormatFloat(res.Mops, 'f', -1, 64), ""
	if err != nil {
		secs, mops, why = "", "", err.Error()
	}
	l.w.Write([]string{c.Name, kernel, class, strconv.Itoa(np), side, strconv.Itoa(run), secs, mops, why})
	l.w.Flush()
}

func (l *csvLog) close() error {
	if l == nil {
		return nil
	}
	l.w.Flush()
	if err := l.w.Error(); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}
