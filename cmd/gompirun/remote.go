package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/launch"
	"github.com/vmihailenco/msgpack/v5"
)

// EnvProxyExe names the gompirun executable to run as the proxy on other
// hosts, for installs where it is not at this gompirun's own path there.
const EnvProxyExe = "GOMPIRUN_PROXY"

// proxy is gompirun's end of one other host's proxy: the launcher process
// that carries it and the processes it runs.
type proxy struct {
	host  string
	procs []*proc // by process index, ascending
	cmd   *exec.Cmd
	down  *msgWriter
	stdin io.WriteCloser
	ends  []*os.File // the launcher's ends of its pipes

	ready    chan struct{} // closed when the proxy reached the exchange, or is gone
	readyIP  string        // the address of gompirun it reached; "" when it failed
	readyErr error
	hungUp   sync.Once
	gone     atomic.Bool    // the launcher exited and was waited for
	errDone  sync.WaitGroup // the forwarder of the launcher's standard error
	ended    chan struct{}  // closed once the launcher was waited for (or never started)

	// Input in flight to process 0: forwardStdin sends while less than
	// inputWindow bytes are not yet taken, so a rank that reads slowly, or
	// never, holds at most that much in the proxy's memory.
	inputMu     sync.Mutex
	inputCond   *sync.Cond
	inputUnread int
	inputDone   bool // the proxy is gone: stop forwarding
}

// inputWindow bounds the input sent to a proxy and not yet taken by
// process 0.
const inputWindow = 1 << 20

// launcherArgs is the command that starts the proxy on host.
func launcherArgs(launcher, host, exe string) []string {
	switch launcher {
	case "fork":
		return []string{exe, proxyArg}
	case "ssh":
		// ssh hands the command to the remote shell as one line.
		return []string{"ssh", "-x", "-o", "BatchMode=yes", host, shellQuote(exe), proxyArg}
	}
	return append(strings.Fields(launcher), host, exe, proxyArg)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// proxyExe is the gompirun to run as proxy on other hosts.
func proxyExe() (string, error) {
	if p := os.Getenv(EnvProxyExe); p != "" {
		return p, nil
	}
	return os.Executable()
}

// exchangeAddrs lists the addresses at which other hosts may reach this
// one, best first: iface's (an interface name or an IP address) when given,
// else every up interface's global addresses, IPv4 first, loopback last
// (which only a proxy on this machine, as with -launcher fork, reaches).
func exchangeAddrs(iface string) ([]string, error) {
	if iface != "" {
		if ip := net.ParseIP(iface); ip != nil {
			return []string{ip.String()}, nil
		}
		ifc, err := net.InterfaceByName(iface)
		if err != nil {
			return nil, fmt.Errorf("-iface %s: %v", iface, err)
		}
		addrs, _ := ifc.Addrs()
		list := ipsOf(addrs, true)
		if len(list) == 0 {
			return nil, fmt.Errorf("-iface %s: the interface has no usable address", iface)
		}
		return list, nil
	}
	var all []net.Addr
	ifcs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %v", err)
	}
	for _, ifc := range ifcs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		all = append(all, addrs...)
	}
	return append(ipsOf(all, false), "127.0.0.1"), nil
}

// ipsOf keeps the global unicast IPs of addrs (and loopback ones if
// asked: an interface named in -iface), IPv4 before IPv6.
func ipsOf(addrs []net.Addr, loopback bool) []string {
	var v4, v6 []string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || !(n.IP.IsGlobalUnicast() || loopback && n.IP.IsLoopback()) {
			continue
		}
		if n.IP.To4() != nil {
			v4 = append(v4, n.IP.String())
		} else {
			v6 = append(v6, n.IP.String())
		}
	}
	return append(v4, v6...)
}

// prepare makes the launcher command for the proxy of px.host; its
// standard error is forwarded like a process's.
func (px *proxy) prepare(launcher string, out *lineWriter) error {
	exe, err := proxyExe()
	if err != nil {
		return fmt.Errorf("cannot find gompirun's own executable for the proxy: %v", err)
	}
	args := launcherArgs(launcher, px.host, exe)
	px.cmd = exec.Command(args[0], args[1:]...)
	px.ready = make(chan struct{})
	px.ended = make(chan struct{})
	if px.stdin, err = px.cmd.StdinPipe(); err != nil {
		return err
	}
	px.down = newMsgWriter(px.stdin)
	errR, errW, err := os.Pipe()
	if err != nil {
		return err
	}
	px.cmd.Stderr = errW
	px.ends = append(px.ends, errW)
	px.errDone.Add(1)
	go func() {
		defer px.errDone.Done()
		defer errR.Close()
		out.forward(errR, os.Stderr, "")
	}()
	return nil
}

// start starts the launcher, sends the spec and reads the proxy's
// messages until it ends; each process's exit goes to exits, exactly once.
func (px *proxy) start(sp *spawner, spec *proxySpec, out *lineWriter, prefixes []string, exits chan<- exit) error {
	upR, upW, err := os.Pipe()
	if err != nil {
		return err
	}
	px.cmd.Stdout = upW
	px.ends = append(px.ends, upW)
	err = sp.start(px.cmd)
	for _, f := range px.ends {
		f.Close()
	}
	if err != nil {
		upR.Close()
		close(px.ended)
		return fmt.Errorf("cannot start the launcher for host %s (%s): %v", px.host, px.cmd.Path, err)
	}
	px.down.send(&downMsg{Op: downSpec, Spec: spec})
	go px.read(upR, out, prefixes, exits)
	return nil
}

func (px *proxy) read(r io.ReadCloser, out *lineWriter, prefixes []string, exits chan<- exit) {
	defer close(px.ended)
	defer r.Close()
	byIdx := map[int]*proc{}
	for _, p := range px.procs {
		byIdx[p.idx] = p
	}
	reported := map[int]bool{}
	var proxyErr string
	ready := false
	dec := msgpack.NewDecoder(bufio.NewReader(r))
	var derr error
	for {
		var m upMsg
		if derr = dec.Decode(&m); derr != nil {
			break
		}
		p := byIdx[m.Proc]
		switch {
		case m.Op == upReady && !ready:
			ready = true
			px.readyIP = m.Addr
			close(px.ready)
		case m.Op == upError:
			proxyErr = m.Err
		case p == nil || reported[m.Proc]:
			// not one of this proxy's processes: ignore
		case m.Op == upStarted:
			p.pidv.Store(int64(m.Pid))
		case m.Op == upOut:
			dst := os.Stdout
			if m.Stream == 2 {
				dst = os.Stderr
			}
			out.line(dst, prefixes[m.Proc], m.Data)
		case m.Op == upInput:
			px.inputTaken(m.Taken, false)
		case m.Op == upExit:
			reported[m.Proc] = true
			e := exit{p: p, code: m.Code, sig: syscall.Signal(m.Signal), signaled: m.Signal != 0}
			if m.Err != "" {
				e.err = errors.New(m.Err)
			}
			exits <- e
		}
	}
	// The proxy is gone, or talks nonsense: whatever it did not report is
	// lost with it.
	px.inputTaken(0, true)
	garbled := !errors.Is(derr, io.EOF)
	werr := px.wait(garbled)
	reason := proxyErr
	switch {
	case reason != "":
	case garbled:
		reason = fmt.Sprintf("unreadable message from its proxy (does a login script write to standard output?): %v", derr)
	case werr != nil:
		reason = fmt.Sprintf("its launcher %s: %v", px.cmd.Args[0], werr)
	default:
		reason = "connection closed"
	}
	if !ready {
		px.readyErr = fmt.Errorf("lost contact with host %s: %s", px.host, reason)
		if proxyErr != "" {
			px.readyErr = errors.New(proxyErr) // it says which host and why
		}
		close(px.ready)
	}
	for _, p := range px.procs {
		if !reported[p.idx] {
			exits <- exit{p: p, err: fmt.Errorf("lost contact with host %s: %s", px.host, reason)}
		}
	}
}

// wait waits for the launcher to exit once its output ended, killing its
// process group when the proxy talks nonsense or does not exit at once.
func (px *proxy) wait(kill bool) error {
	done := make(chan error, 1)
	go func() { done <- px.cmd.Wait() }()
	if !kill {
		select {
		case err := <-done:
			px.gone.Store(true)
			return err
		case <-time.After(time.Second):
		}
	}
	syscall.Kill(-px.cmd.Process.Pid, syscall.SIGKILL)
	err := <-done
	px.gone.Store(true)
	return err
}

// signal forwards sig to the proxy's processes. SIGKILL also hangs up on
// the proxy, which then kills whatever is left and exits; should it not
// (a launcher that does not pass the hang-up on), the launcher's process
// group is killed a second later, which ends the job anyway.
func (px *proxy) signal(sig syscall.Signal) {
	px.down.send(&downMsg{Op: downSignal, Sig: int(sig)})
	if sig != syscall.SIGKILL {
		return
	}
	px.hungUp.Do(func() {
		px.stdin.Close()
		pid := px.cmd.Process.Pid
		time.AfterFunc(time.Second, func() {
			if !px.gone.Load() {
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		})
	})
}

// inputTaken records n more input bytes taken by process 0, or that the
// proxy is gone.
func (px *proxy) inputTaken(n int, gone bool) {
	px.inputMu.Lock()
	defer px.inputMu.Unlock()
	px.initInput()
	px.inputUnread -= n
	px.inputDone = px.inputDone || gone
	px.inputCond.Broadcast()
}

func (px *proxy) initInput() {
	if px.inputCond == nil {
		px.inputCond = sync.NewCond(&px.inputMu)
	}
}

// awaitLaunchers gives the launchers up to d to end by themselves once
// their proxies are done: ssh, say, still reports on the connection as it
// ends, and what is left when the spawner is released is killed.
func awaitLaunchers(proxies []*proxy, d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, px := range proxies {
		if px.ended == nil {
			continue
		}
		select {
		case <-px.ended:
		case <-deadline.C:
			return
		}
	}
}

// forwardStdin sends gompirun's standard input to the proxy of process 0,
// at most inputWindow bytes ahead of what process 0 has taken.
func (px *proxy) forwardStdin() {
	buf := make([]byte, 32<<10)
	for {
		px.inputMu.Lock()
		px.initInput()
		for px.inputUnread+len(buf) > inputWindow && !px.inputDone {
			px.inputCond.Wait()
		}
		done := px.inputDone
		px.inputMu.Unlock()
		if done {
			return
		}
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			px.inputMu.Lock()
			px.inputUnread += n
			px.inputMu.Unlock()
			if px.down.send(&downMsg{Op: downStdin, Data: append([]byte(nil), buf[:n]...)}) != nil {
				return
			}
		}
		if err != nil {
			px.down.send(&downMsg{Op: downStdinEOF})
			return
		}
	}
}

// environForRemote is gompirun's environment as passed to processes on
// other hosts (as MPICH's hydra passes it by default), less what describes
// this host or this login session only.
func environForRemote() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOSTNAME", k == "PWD", k == "OLDPWD", k == "SHLVL", k == "_",
			k == "DISPLAY", k == "XAUTHORITY", strings.HasPrefix(k, "SSH_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// isLocal reports whether host is started directly: this machine, under
// any launcher.
func isLocal(host string) bool { return launch.IsThisHost(host) }
