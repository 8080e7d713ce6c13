// Package serverproc runs a server binary as a child process for the benchmark drivers
// (scripts/bench, scripts/scalebench): started with its output in a log file, waited on until
// an address answers 200, stopped with SIGTERM and, if it lingers, killed.
package serverproc

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
