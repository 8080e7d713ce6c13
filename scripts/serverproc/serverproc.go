// Package serverproc runs a server binary as a child process for the benchmark drivers
// (scripts/bench, scripts/scalebench): started with its output in a log file, waited on until
// an address answers 200, stopped with SIGTERM and, if it lingers, killed.
package serverproc

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a started server.
type Process struct {
	Cmd *exec.Cmd
	// Log is the file its standard output and error go to.
	Log  string
	done chan struct{}
}

// Start runs bin with args and env added to this process's environment, its output in logPath.
func Start(bin, logPath string, env []string, args ...string) (*Process, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	out, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(abs, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &Process{Cmd: cmd, Log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); out.Close(); close(p.done) }()
	return p, nil
}

// Stop asks the server to stop (SIGTERM) and kills it if it has not within grace.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// FreeAddr is a loopback address with a port nothing listens on now.
func FreeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// WaitReady polls u every poll until it answers 200, for at most within.
func WaitReady(u string, within, poll time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if res, err := http.Get(u); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(poll)
	}
	return fmt.Errorf("%s not ready within %s", u, within)
}

// CPU is the processor time the server has used so far, user and system, read from
// /proc/<pid>/stat (Linux; 0 where it cannot be read). The kernel counts it in ticks of
// USER_HZ, which is 100 on every Linux architecture Go runs on.
func (p *Process) CPU() time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after it are plain.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 13 {
		return 0
	}
	// utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * (time.Second / 100)
}
