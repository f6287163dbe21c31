package main

import (
	"io"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// The proxy protocol: gompirun and the proxy it starts on each other host
// exchange msgpack messages over the proxy's standard input (down) and
// output (up). The launcher (ssh, or any command prefix) carries them; the
// proxy's standard error passes through to gompirun's.

// proxyArg is the hidden first argument that turns gompirun into a proxy.
const proxyArg = "--gompi-proxy"

// Operations of down messages.
const (
	downSpec     = "spec"      // first message: what to start
	downStdin    = "stdin"     // bytes for process 0's standard input
	downStdinEOF = "stdin-eof" // process 0's standard input ends
	downSignal   = "signal"    // signal every running process's group
)

// Operations of up messages.
const (
	upReady   = "ready"   // the exchange answered at Addr; children start now
	upStarted = "started" // process Proc runs as Pid
	upOut     = "out"     // one line (or last fragment) Proc wrote on Stream
	upExit    = "exit"    // process Proc ended; its output was sent before
	upInput   = "input"   // process 0 took Taken more bytes of its input
	upError   = "error"   // the proxy cannot go on: Err says why; it exits
)

type downMsg struct {
	Op   string     `msgpack:"op"`
	Spec *proxySpec `msgpack:"spec,omitempty"`
	Data []byte     `msgpack:"data,omitempty"`
	Sig  int        `msgpack:"sig,omitempty"`
}

// proxySpec is everything a proxy needs to start its part of the job.
type proxySpec struct {
	Job   string   `msgpack:"job"`   // the job id (names its shared-memory segments)
	Host  string   `msgpack:"host"`  // this host's name in the host list (GOMPI_HOST)
	Token string   `msgpack:"token"` // the job's token, to probe the exchange
	Addrs []string `msgpack:"addrs"` // gompirun's candidate IPs, in order of preference
	Port  int      `msgpack:"port"`  // the exchange's TCP port
	Dir   string   `msgpack:"dir"`   // working directory, if it exists on this host
	Env   []string `msgpack:"env"`   // gompirun's environment, passed on to every process
	Procs []proxyProc
	Stdin bool `msgpack:"stdin"` // process index 0 is here and reads forwarded input
}

type proxyProc struct {
	Idx  int      `msgpack:"idx"`
	Exe  string   `msgpack:"exe"`
	Args []string `msgpack:"args"`
	Env  []string `msgpack:"env"` // the process's own part of the job (GOMPI_*)
}

type upMsg struct {
	Op     string `msgpack:"op"`
	Proc   int    `msgpack:"proc,omitempty"`
	Pid    int    `msgpack:"pid,omitempty"`
	Stream int    `msgpack:"stream,omitempty"` // 1 stdout, 2 stderr
	Data   []byte `msgpack:"data,omitempty"`
	Addr   string `msgpack:"addr,omitempty"`
	Code   int    `msgpack:"code,omitempty"`   // exit status
	Signal int    `msgpack:"signal,omitempty"` // or the signal that killed it
	Err    string `msgpack:"err,omitempty"`    // or why it could not run
	Taken  int    `msgpack:"taken,omitempty"`  // input bytes written to process 0 (upInput)
}

// msgWriter encodes messages from several goroutines onto one stream.
type msgWriter struct {
	mu  sync.Mutex
	enc *msgpack.Encoder
	err error
}

func newMsgWriter(w io.Writer) *msgWriter { return &msgWriter{enc: msgpack.NewEncoder(w)} }

// send writes v; after the first error it only returns that error.
func (w *msgWriter) send(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.enc.Encode(v)
	}
	return w.err
}
