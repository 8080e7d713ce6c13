package storetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// dbServer is a glimpse-testdb process (cmd/testdb) serving one test binary.
type dbServer struct {
	cmd  *exec.Cmd
	done chan error // receives Wait's result once
}

// startDBServer runs the glimpse-testdb binary bin on dataDir and returns the URI it
// prints once it accepts connections. The process is tied to this one: it
// gets SIGKILL if the test binary dies first (parentDeath), so a crashed or
// timed-out test run leaves no server behind.
func startDBServer(ctx context.Context, bin, dataDir string) (*dbServer, string, error) {
	args := []string{"--data", dataDir, "--throwaway"}
	if os.Getenv(EnvDurable) != "" {
		args = args[:2]
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GLIMPSE_LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = parentDeath()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", fmt.Errorf("storetest: glimpse-testdb stdout: %w", err)
	}
	// The parent-death signal follows the thread that started the child;
	// keeping this goroutine on one thread while starting, and letting the
	// thread go back to the pool after, keeps that thread alive.
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, "", fmt.Errorf("storetest: start %s: %w", bin, err)
	}
	s := &dbServer{cmd: cmd, done: make(chan error, 1)}

	uri := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if v, ok := strings.CutPrefix(lines.Text(), "MONGODB_URI="); ok {
				uri <- v
				break
			}
		}
		close(uri)
		_, _ = io.Copy(io.Discard, out)
		s.done <- cmd.Wait()
	}()
	select {
	case u, ok := <-uri:
		if ok {
			return s, u, nil
		}
		return nil, "", fmt.Errorf("storetest: glimpse-testdb ended without printing its URI: %w", <-s.done)
	case <-ctx.Done():
		_ = s.stop()
		return nil, "", fmt.Errorf("storetest: wait for glimpse-testdb: %w", ctx.Err())
	}
}

// stop asks the server to finish (SIGTERM, as a service manager would) and
// kills it if it has not within ten seconds.
func (s *dbServer) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled() {
			return nil
		}
		return err
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		return fmt.Errorf("storetest: glimpse-testdb did not stop within 10s: %w", <-s.done)
	}
}
