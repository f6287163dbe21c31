package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/gompi/gompi/internal/jsonnum"
	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/mpi"
)

// -trace FILE writes the job's timeline in the Chrome trace event format
// (JSON; ui.perfetto.dev and chrome://tracing open it): a track per traced
// rank, a span per MPI call as the program made it, the computation
// between calls, and inside a call the time spent waiting. A virtual run's
// times are predicted (virtual seconds), a real run's are host time since
// the job began, so the two timelines of one program can be compared.

// traceRun is what -trace adds to a job.
type traceRun struct {
	epoch    int64  // the job's start, Unix nanoseconds: host times count from it
	file     string // -trace; "" with -timeline alone
	timeline string // -timeline (timeline.go)
	partial  string // why the job stopped early (finishPartial); "" when it finished
	ranks    launch.RankSet
	perRank  int // events each traced rank may keep
	virtual  string
}

// defaultTraceMax is -trace-max's default: about 120 MB of JSON (docs/gompirun.md).
const defaultTraceMax = 1000000

// prepareTrace checks the trace options before anything starts.
func prepareTrace(o *options, ranksSpec string, traceMax int, set map[string]bool) (*traceRun, error) {
	if o.traceFile == "" && o.timeline == "" {
		if set["trace-ranks"] || set["trace-max"] {
			return nil, fmt.Errorf("-trace-ranks and -trace-max need -trace FILE or -timeline FILE")
		}
		return nil, nil
	}
	if o.sweep != nil {
		return nil, fmt.Errorf("-trace or -timeline with a list of -virtual: trace one prediction at a time")
	}
	if traceMax < 1 {
		return nil, fmt.Errorf("-trace-max %d: want at least 1 event", traceMax)
	}
	ranks, err := launch.ParseRankSet(ranksSpec, o.ranks)
	if err != nil {
		return nil, fmt.Errorf("-trace-ranks %s: %v", ranksSpec, err)
	}
	if o.traceFile != "" {
		if err := checkWritable(o.traceFile); err != nil {
			return nil, fmt.Errorf("-trace: %v", err)
		}
	}
	if o.timeline != "" {
		if err := checkTimeline(o.timeline, ranks.Count(o.ranks)); err != nil {
			return nil, err
		}
	}
	t := &traceRun{epoch: time.Now().UnixNano(), file: o.traceFile, timeline: o.timeline, ranks: ranks, perRank: max(1, traceMax/ranks.Count(o.ranks))}
	if o.virt != nil {
		t.virtual = o.virt.machine.Name
	}
	return t, nil
}

// env is what every process of a traced job gets.
func (t *traceRun) env() []string {
	return []string{launch.EnvTrace + "=" + strconv.Itoa(t.perRank) + ":" + strconv.FormatInt(t.epoch, 10) + ":" + t.ranks.String()}
}

// finish gathers the processes' events, writes the trace file and draws
// the timeline; it reports on w how many events were dropped past
// -trace-max. Each process's events are written as they are decoded and
// kept only for the timeline, which draws at most 64 ranks.
func (t *traceRun) finish(ex *launch.Server, procs int, w io.Writer) error {
	var out *chromeWriter
	if t.file != "" {
		var err error
		if out, err = newChromeWriter(t.file, t.virtual); err != nil {
			return err
		}
		defer out.abort()
	}
	var events []mpi.TraceEvent
	var dropped int64
	for p := 0; p < procs; p++ {
		s, ok := ex.Get(launch.TraceKey(p))
		if !ok {
			continue // a process with no traced rank
		}
		rec, err := mpi.DecodeTraceRecord([]byte(s))
		if err != nil {
			return fmt.Errorf("process %d: %v", p, err)
		}
		dropped += rec.Dropped
		if out != nil {
			if err := out.add(rec.Events); err != nil {
				return err
			}
		}
		if t.timeline != "" {
			events = append(events, rec.Events...)
		}
	}
	if out != nil {
		if err := out.close(dropped, t.partial); err != nil {
			return err
		}
	}
	if dropped > 0 {
		what := t.file
		if what == "" {
			what = t.timeline
		}
		fmt.Fprintf(w, "gompirun: -trace: %d events past -trace-max were dropped; %s is truncated (ranks stopped recording when they reached their share)\n", dropped, what)
	}
	if t.timeline != "" {
		title, clock := "real run", "seconds since the job began (host time)"
		if t.virtual != "" {
			title, clock = "predicted on "+t.virtual, "predicted seconds"
		}
		if t.partial != "" {
			title += " (partial: the job did not finish)"
		}
		if err := plotTimeline(t.timeline, events, title, clock); err != nil {
			return fmt.Errorf("-timeline: %v", err)
		}
	}
	return nil
}

// chromeWriter writes a trace file in the Chrome trace event format, a
// process's events at a time. The events are appended as JSON by hand
// (appendChromeEvent): a trace can hold tens of millions, and a map and
// encoding/json each cost microseconds.
type chromeWriter struct {
	f       *os.File
	out     *bufio.Writer
	b       []byte
	named   map[int]bool // ranks whose track has its name
	clock   string
	started bool // the first event (the process's name) is written
}

func newChromeWriter(file, virtual string) (*chromeWriter, error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	c := &chromeWriter{f: f, out: bufio.NewWriterSize(f, 1<<20), named: map[int]bool{}, clock: "host"}
	name := "gompi job (host time)"
	if virtual != "" {
		name, c.clock = "gompi job (predicted on "+virtual+")", "virtual"
	}
	c.out.WriteString("{\"traceEvents\":[\n")
	if err := c.meta(meta("process_name", -1, name)); err != nil {
		c.abort()
		return nil, err
	}
	return c, nil
}

// meta writes a metadata event; the process's name comes first, so every
// other event follows a comma.
func (c *chromeWriter) meta(v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if c.started {
		c.out.WriteString(",\n")
	}
	c.started = true
	_, err = c.out.Write(js)
	return err
}

func (c *chromeWriter) add(events []mpi.TraceEvent) error {
	var err error
	for _, e := range events {
		if !c.named[e.Rank] {
			c.named[e.Rank] = true
			if err := c.meta(meta("thread_name", e.Rank, "rank "+strconv.Itoa(e.Rank))); err != nil {
				return err
			}
			if err := c.meta(map[string]any{"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": e.Rank, "args": map[string]int{"sort_index": e.Rank}}); err != nil {
				return err
			}
		}
		c.b = append(c.b[:0], ",\n"...)
		if c.b, err = appendChromeEvent(c.b, e); err != nil {
			return err
		}
		if _, err := c.out.Write(c.b); err != nil {
			return err
		}
	}
	return nil
}

// close ends the file with the trace's other data: its clock, the events
// dropped past -trace-max, and why the job stopped early if it did.
func (c *chromeWriter) close(dropped int64, partial string) error {
	od := map[string]any{"clock": c.clock, "dropped_events": dropped, "truncated": dropped > 0}
	if partial != "" {
		od["partial"] = partial // the job did not finish: the events up to where it stopped
	}
	other, _ := json.Marshal(od)
	fmt.Fprintf(c.out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":%s}\n", other)
	err := c.out.Flush()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	c.f = nil
	return err
}

// abort closes a file that close did not (an error on the way).
func (c *chromeWriter) abort() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

func meta(kind string, tid int, name string) map[string]any {
	m := map[string]any{"name": kind, "ph": "M", "pid": 0, "args": map[string]string{"name": name}}
	if tid >= 0 {
		m["tid"] = tid
	}
	return m
}

// appendChromeEvent appends e as a complete ("X") event, or a message's
// arrow end ("s" at the sender, "f" at the receiver, bound to the span it
// falls in), times in microseconds: the JSON encoding/json writes for the
// same object (keys sorted; TestChromeEventJSON compares them).
func appendChromeEvent(b []byte, e mpi.TraceEvent) ([]byte, error) {
	ts, dur := e.Start*1e6, (e.End-e.Start)*1e6
	if !finite(ts) || !finite(dur) {
		return b, fmt.Errorf("rank %d: event %q at %g s has a time that is not finite", e.Rank, e.Kind, e.Start)
	}
	name, cat := e.Name, "mpi"
	switch e.Kind {
	case "send", "recv":
		b = append(b, '{')
		if e.Kind == "recv" {
			b = append(b, `"bp":"e",`...)
		}
		b = append(b, `"cat":"message","id":`...)
		b = strconv.AppendUint(b, e.ID, 10)
		b = append(b, `,"name":"message","ph":"`...)
		if e.Kind == "send" {
			b = append(b, 's')
		} else {
			b = append(b, 'f')
		}
		b = append(b, `","pid":0,"tid":`...)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
		b = append(b, `,"ts":`...)
		b = jsonnum.AppendFloat(b, ts)
		return append(b, '}'), nil
	case "compute":
		name, cat = "computation", "compute"
	case "wait":
		name, cat = "waiting", "wait"
	}
	b = append(b, '{')
	if e.HasArgs || e.Algo != "" {
		// The arguments, keys sorted: algorithm, bytes, then the call's
		// (dest < root < source < tag).
		b = append(b, `"args":{`...)
		sep := false
		if e.Algo != "" {
			b = append(b, `"algorithm":`...)
			b = appendJSONString(b, e.Algo)
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, int64(e.Bytes), 10)
			sep = true
		}
		if e.HasArgs {
			la, lb := argNames(e.Name)
			args := [2]struct {
				k string
				v int32
			}{{la, e.A}, {lb, e.B}}
			if lb != "" && lb < la {
				args[0], args[1] = args[1], args[0]
			}
			for _, a := range args {
				if a.k == "" {
					continue
				}
				if sep {
					b = append(b, ',')
				}
				b = appendJSONString(b, a.k)
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(a.v), 10)
				sep = true
			}
		}
		b = append(b, "},"...)
	}
	b = append(b, `"cat":`...)
	b = appendJSONString(b, cat)
	b = append(b, `,"dur":`...)
	b = jsonnum.AppendFloat(b, dur)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"ph":"X","pid":0,"tid":`...)
	b = strconv.AppendInt(b, int64(e.Rank), 10)
	b = append(b, `,"ts":`...)
	b = jsonnum.AppendFloat(b, ts)
	return append(b, '}'), nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendJSONString appends s quoted as encoding/json quotes it; the names
// written here are plain ASCII, anything else goes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			js, _ := json.Marshal(s)
			return append(b, js...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// argNames labels a call's A and B (mpi.TraceEvent).
func argNames(call string) (a, b string) {
	switch call {
	case "Send", "Ssend", "Isend", "Issend":
		return "dest", "tag"
	case "Recv", "Probe", "Irecv", "Iprobe":
		return "source", "tag"
	case "Sendrecv":
		return "dest", "source"
	}
	return "root", ""
}
